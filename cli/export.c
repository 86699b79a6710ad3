/* SPDX-License-Identifier: MIT */
/*
 * export.c - `cudatrace export`: writes the traces in another format, for
 * other tools. Each format is one row of the table below, its writer in
 * the analyzers.
 *
 * Exit status: 0, 1 when the output cannot be made (out of memory,
 * babeltrace2 plugins missing, the directory not writable or not empty),
 * 2 for wrong arguments and input with nothing to export.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arg-check.h"
#include "diag.h"
#include "export-ctf.h"
#include "log.h"
#include "verbs.h"

/* -------------------------------------------------------------- formats */

/* --format ctf: the GPU-time trace (export-ctf.h). */
static int export_ctf(const char *const *paths, size_t count, const char *output)
{
	struct ct_gpu_time_stats stats;
	char error[1024];
	enum ct_export_status status =
	    ct_export_ctf(paths, count, output, &stats, error, sizeof(error));

	if (status != CT_EXPORT_OK) {
		fprintf(stderr, "cudatrace export: %s\n", error);
		return status == CT_EXPORT_INPUT_ERROR ? EXIT_USAGE : 1;
	}
	if (stats.dropped_records || stats.discarded_events)
		fprintf(stderr,
		        "cudatrace export: warning: CUPTI dropped %" PRIu64 " activity records and "
		        "LTTng discarded %" PRIu64
		        " events: the GPU-time trace misses what they held\n",
		        stats.dropped_records, stats.discarded_events);
	if (stats.late)
		fprintf(stderr,
		        "cudatrace export: warning: %" PRIu64 " GPU operations came later than the "
		        "reorder window (%.3f ms) and are left out\n",
		        stats.late, (double)stats.window_ns / 1e6);
	if (stats.untimed)
		fprintf(
		    stderr,
		    "cudatrace export: warning: %" PRIu64
		    " GPU records have no GPU times, or times out of the clock's range, and are "
		    "left out\n",
		    stats.untimed);
	printf("cudatrace export: %" PRIu64 " GPU operations in %" PRIu64
	       " stream%s written to %s\n",
	       stats.operations, stats.streams, stats.streams == 1 ? "" : "s", output);
	return 0;
}

static const struct format {
	const char *name;
	int (*run)(const char *const *paths, size_t count, const char *output);
	const char *summary;
} formats[] = {
	{ "ctf", export_ctf, "GPU operations at their GPU times, as CTF" },
	{ NULL, NULL, NULL },
};

/* ------------------------------------------------------------ arguments */

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: cudatrace export --format=FORMAT -o OUTPUT TRACE...\n"
	        "\n"
	        "Writes the traces (directories made by `cudatrace record`) in another format.\n"
	        "\n"
	        "Options:\n"
	        "  -f, --format=FORMAT     one of:\n");
	for (const struct format *f = formats; f->name; f++)
		fprintf(out, "                            %s: %s\n", f->name, f->summary);
	fprintf(out,
	        "  -o, --output=OUTPUT     where to write (ctf: a new or empty directory)\n"
	        "  -h, --help              this help\n"
	        "\n"
	        "Exit status: 0 success, 1 failure, 2 wrong arguments or nothing to export.\n");
}

#define usage_error(...) arg_usage_error("export", __VA_ARGS__)

int cmd_export(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = NULL, *output = NULL;
	int c;

	diag_set_prefix("cudatrace export");
	optind = 1;
	while ((c = getopt_long(argc, argv, "+f:o:h", options, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return usage_error("unknown option");
		}
	}
	if (!format)
		return usage_error("name a format with --format");
	if (!output || !output[0])
		return usage_error("name where to write with -o");
	/* room for the stream files under it */
	if (arg_check_path("-o", output, 128) < 0)
		return EXIT_USAGE;
	if (optind >= argc)
		return usage_error("name at least one trace");
	for (const struct format *f = formats; f->name; f++)
		if (!strcmp(f->name, format))
			return f->run((const char *const *)argv + optind, (size_t)(argc - optind),
			              output);
	return usage_error("unknown format '%s'", format);
}
