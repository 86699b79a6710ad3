/* SPDX-License-Identifier: MIT */
/*
 * bare-loop.c - the cost of one bare LTTng event with the payload of a
 * cudatrace memcpy event: emits N of them in a tight loop and prints
 *
 *   events=N ns=TOTAL ns_per_event=X
 *
 * Run it under a session that enables cudatrace_bench:* to measure an
 * enabled event, or without one for a disabled tracepoint.
 *
 *   bare-loop [N]    default 200000
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bare-tp.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long events = argc > 1 ? atol(argv[1]) : 200000;
	uint64_t start;
	uint64_t elapsed;

	if (events <= 0) {
		fprintf(stderr, "usage: bare-loop [N]\n");
		return 2;
	}
	start = now_ns();
	for (long i = 0; i < events; i++)
		lttng_ust_tracepoint(cudatrace_bench, call, 0x7f0000000000u + (uint64_t)i * 256,
		                     0x7e0000000000u, 256, 7, (uint32_t)i);
	elapsed = now_ns() - start;
	printf("events=%ld ns=%llu ns_per_event=%.1f\n", events, (unsigned long long)elapsed,
	       (double)elapsed / (double)events);
	return 0;
}
