/* SPDX-License-Identifier: MIT */
/*
 * export.c - `cudatrace export`: reads one or more traces and writes them
 * in another tool's format. The formats are a table: each row names the
 * function that writes it, its writer in the analyzers.
 *
 * Exit status: 0 (also for a trace cut short, exported up to its last
 * event, with a warning), 1 when the export cannot be written (out of
 * memory, babeltrace2 plugins missing, a directory not writable or not
 * empty), 2 for wrong arguments and input that is not a usable cudatrace
 * trace or holds nothing to export.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "arg-check.h"
#include "diag.h"
#include "export-ctf.h"
#include "options.h"
#include "perfetto-export.h"
#include "reader.h"
#include "verbs.h"

/* What the command line asked for. Strings are borrowed from argv. */
struct export_args {
	struct ct_options opts;
	const struct export_format *format;
	const char *output;
	const char *const *paths;
	size_t path_count;
};

/*
 * A format: its name, what writes it, and the room its output needs under
 * the -o path (a directory's files) beyond the path itself.
 */
struct export_format {
	const char *name;
	int (*run)(const struct export_args *a);
	size_t output_room;
	const char *summary;
};

static int export_perfetto(const struct export_args *a);
static int export_ctf(const struct export_args *a);

static const struct export_format formats[] = {
	{ "perfetto", export_perfetto, 0, "Perfetto's protobuf trace (TracePacket, TrackEvent)" },
	/* room for the stream files under the directory */
	{ "ctf", export_ctf, 128, "GPU operations at their GPU times, as CTF (a directory)" },
	{ NULL, NULL, 0, NULL },
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
	for (const struct export_format *f = formats; f->name; f++)
		fprintf(out, "                            %-9s %s\n", f->name, f->summary);
	fprintf(out, "  -o, --output=OUTPUT     where to write (perfetto: a file; ctf: a new or\n"
	             "                          empty directory); required\n"
	             "  -h, --help              this help\n"
	             "\n"
	             "Exit status: 0 success, 1 failure, 2 wrong arguments or unusable input.\n");
}

#define usage_error(...) arg_usage_error("export", __VA_ARGS__)

static const struct export_format *format_find(const char *name)
{
	for (const struct export_format *f = formats; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

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
	a->format = &formats[0];
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'f':
			a->format = format_find(optarg);
			if (!a->format)
				return usage_error("unknown format '%s' (perfetto, ctf)", optarg);
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
	if (arg_check_path("-o", a->output, a->format->output_room) < 0)
		return EXIT_USAGE;
	for (size_t i = 0; i < a->path_count; i++)
		if (arg_check_path("the trace", a->paths[i], 0) < 0)
			return EXIT_USAGE;
	/* every failed allocation gets its instant: none is left out of the list */
	a->opts.max_rows = SIZE_MAX;
	return 0;
}

/* -------------------------------------------------------------- perfetto */

/*
 * The exporter and the fragmentation analysis (for the verdict of each
 * failed allocation) on one reader, writing to OUT. 0, 1 or EXIT_USAGE.
 */
static int perfetto_write(const struct export_args *a, FILE *out)
{
	struct ct_reader *reader = ct_reader_create(&a->opts);
	struct ct_perfetto *p = ct_perfetto_create(ct_reader_context(reader), &a->opts, out);
	enum ct_reader_status status;
	int ret = 0;

	if (!p || ct_reader_attach(reader, &ct_perfetto_export, p) < 0 ||
	    ct_reader_add(reader, &ct_fragmentation_analysis) < 0) {
		fprintf(stderr, "cudatrace export: %s\n",
		        p ? ct_reader_stats(reader)->error : "no context slot left");
		ct_reader_destroy(reader);
		return 1;
	}
	status = ct_reader_read(reader, a->paths, a->path_count);
	if (status == CT_READER_INPUT_ERROR || status == CT_READER_ERROR) {
		fprintf(stderr, "cudatrace export: %s\n", ct_reader_stats(reader)->error);
		ret = status == CT_READER_INPUT_ERROR ? EXIT_USAGE : 1;
		goto end;
	}
	if (status == CT_READER_TRUNCATED)
		fprintf(stderr, "cudatrace export: warning: %s\n", ct_reader_stats(reader)->error);
	if (ct_reader_finish(reader) < 0) {
		fprintf(stderr, "cudatrace export: %s\n", ct_reader_stats(reader)->error);
		ret = 1;
		goto end;
	}
	ct_perfetto_failures(p, ct_reader_result(reader, &ct_fragmentation_analysis));
	if (ct_perfetto_close(p) < 0) {
		fprintf(stderr, "cudatrace export: cannot write '%s': %s\n", a->output,
		        strerror(errno));
		ret = 1;
	}
end:
	ct_reader_destroy(reader);
	return ret;
}

/* --format perfetto: one file, removed again when the export fails. */
static int export_perfetto(const struct export_args *a)
{
	struct stat st;
	bool regular;
	FILE *out;
	int ret;

	out = fopen(a->output, "wb");
	if (!out) {
		fprintf(stderr, "cudatrace export: cannot write '%s': %s\n", a->output,
		        strerror(errno));
		return 1;
	}
	/* only a regular file is removed after a failure: never a device such as /dev/full */
	regular = fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode);
	ret = perfetto_write(a, out);
	if (fclose(out) != 0 && !ret) {
		fprintf(stderr, "cudatrace export: cannot write '%s': %s\n", a->output,
		        strerror(errno));
		ret = 1;
	}
	/* no half-written file is left to be taken for an export */
	if (ret && regular)
		unlink(a->output);
	return ret;
}

/* ------------------------------------------------------------------- ctf */

/* --format ctf: the GPU-time trace (export-ctf.h). */
static int export_ctf(const struct export_args *a)
{
	struct ct_gpu_time_stats stats;
	char error[1024];
	enum ct_export_status status =
	    ct_export_ctf(a->paths, a->path_count, a->output, &stats, error, sizeof(error));

	if (status != CT_EXPORT_OK) {
		fprintf(stderr, "cudatrace export: %s\n", error);
		return status == CT_EXPORT_INPUT_ERROR ? EXIT_USAGE : 1;
	}
	if (stats.truncated)
		fprintf(stderr, "cudatrace export: warning: %s\n", error);
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
	if (stats.unmatched)
		fprintf(stderr,
		        "cudatrace export: warning: %" PRIu64
		        " GPU operations have no call in the trace (it was lost, or came before "
		        "the trace began) and are left out\n",
		        stats.unmatched);
	printf("cudatrace export: %" PRIu64 " GPU operations in %" PRIu64
	       " stream%s written to %s\n",
	       stats.operations, stats.streams, stats.streams == 1 ? "" : "s", a->output);
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
	return a.format->run(&a);
}
