/* SPDX-License-Identifier: MIT */
/*
 * export.c - `cudatrace export`: reads one or more traces and writes them
 * in another tool's format. The formats, and what writes each, are the
 * registry's (analyzers/registry/formats.h); this is the command line.
 *
 * Exit status: 0 (also for a trace cut short, exported up to its last
 * event, with a warning), 1 when the export cannot be written (out of
 * memory, babeltrace2 plugins missing, a directory not writable or not
 * empty), 2 for wrong arguments and input that is not a usable cudatrace
 * trace or holds nothing to export.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arg-check.h"
#include "common/options.h"
#include "diag.h"
#include "registry/formats.h"
#include "stale.h"
#include "verbs.h"

/* What the command line asked for. Strings are borrowed from argv. */
struct export_args {
	struct ct_options opts;
	const struct ct_format *format;
	const char *output;
	const char *const *paths;
	size_t path_count;
};

/* ------------------------------------------------------------ arguments */

static void usage(FILE *out)
{
	fprintf(out, "usage: cudatrace export [--format=FORMAT] --output=OUTPUT TRACE...\n"
	             "\n"
	             "Reads the traces (directories made by `cudatrace record`, or any directory\n"
	             "holding them) and writes them in another tool's format.\n"
	             "\n"
	             "Options:\n"
	             "  -f, --format=FORMAT     the format (default perfetto):\n");
	ct_format_help(out, CT_FORMAT_EXPORT, 28, 9);
	fprintf(out, "  -o, --output=OUTPUT     where to write (perfetto: a file; ctf: a new or\n"
	             "                          empty directory); required\n"
	             "  -h, --help              this help\n"
	             "\n"
	             "Exit status: 0 success, 1 failure, 2 wrong arguments or unusable input.\n");
}

#define usage_error(...) arg_usage_error("export", __VA_ARGS__)

static const struct option long_options[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Parses argv. 0, -1 for --help, or EXIT_USAGE. */
static int parse_args(struct export_args *a, int argc, char **argv)
{
	int c;

	ct_options_init(&a->opts);
	a->format = ct_format_default(CT_FORMAT_EXPORT);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'f':
			a->format = ct_format_find(CT_FORMAT_EXPORT, optarg);
			if (!a->format) {
				char names[128];

				return usage_error(
				    "unknown format '%s' (%s)", optarg,
				    ct_format_names(CT_FORMAT_EXPORT, names, sizeof(names)));
			}
			break;
		case 'o':
			a->output = optarg;
			if (!*optarg)
				return usage_error("%s", "--output needs a file name");
			break;
		case 'h':
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	a->paths = (const char *const *)argv + optind;
	a->path_count = (size_t)(argc - optind);
	if (!a->path_count)
		return usage_error("%s", "no trace given");
	if (!a->output)
		return usage_error("%s", "no output given (--output=OUTPUT)");
	if (arg_check_path("-o", a->output, a->format->export->output_room) < 0)
		return EXIT_USAGE;
	for (size_t i = 0; i < a->path_count; i++)
		if (arg_check_path("the trace", a->paths[i], 0) < 0)
			return EXIT_USAGE;
	/* a file of a trace, its cudatrace.info say, is never written over while it is read */
	if (arg_check_output_outside("-o", a->output, a->paths, a->path_count) < 0)
		return EXIT_USAGE;
	/* every failed allocation gets its instant: none is left out of the list */
	a->opts.max_rows = SIZE_MAX;
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = { 0 };
	int ret;

	diag_set_prefix("cudatrace export");
	ret = parse_args(&a, argc, argv);
	if (ret < 0) {
		usage(stdout);
		return 0;
	}
	if (ret)
		return ret;
	stale_cleanup_before_reading();
	return (int)a.format->export->run(&(struct ct_export_request){
	    .opts = &a.opts,
	    .paths = a.paths,
	    .path_count = a.path_count,
	    .output = a.output,
	    .prefix = diag_prefix(),
	    .messages = stderr,
	    .summary = stdout,
	});
}
