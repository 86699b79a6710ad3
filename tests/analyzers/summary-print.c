/* SPDX-License-Identifier: MIT */
/*
 * summary-print.c - what `cudatrace record` prints about a trace (cli/summary.c),
 * printed for a trace the tests made by hand:
 *
 *	summary-print DIR            the short report
 *	summary-print DIR SIGNAL     the post-mortem of a program killed by SIGNAL
 *
 * Exits 1 when the trace cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>

#include "summary.h"

int main(int argc, char **argv)
{
	struct summary *s;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: summary-print DIR [SIGNAL]\n");
		return 2;
	}
	s = summary_read(argv[1]);
	if (!s)
		return 1;
	summary_conclude(s, NULL);
	if (argc == 3)
		summary_print_postmortem(s, atoi(argv[2]), false, stdout);
	else
		summary_print_report(s, stdout);
	summary_destroy(s);
	return 0;
}
