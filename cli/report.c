/* SPDX-License-Identifier: MIT */
/*
 * report.c - `cudatrace report`: reads one or more traces in one pass,
 * runs the analyses and writes the report as text, CSV, JSON or HTML.
 *
 * Exit status: 0 (also for a trace cut short, analysed up to its last
 * event, with a warning), 1 when the report cannot be made or written
 * (out of memory, babeltrace2 plugins missing), 2 for wrong arguments and
 * input that is not a usable cudatrace trace.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "registry/analyses.h"
#include "arg-check.h"
#include "death-section.h"
#include "read/discovery.h"
#include "common/document.h"
#include "read/filters.h"
#include "findings/findings.h"
#include "common/options.h"
#include "report/plot.h"
#include "model/symbolizer.h"
#include "pass/reader.h"
#include "last-words-section.h"
#include "recorded-read.h"
#include "verbs.h"
#include "registry/formats.h"
#include "snapshot.h"
#include "diag.h"
#include "stale.h"
#include "trace-info.h"

#define DEFAULT_TEXT_ROWS 20
#define DEFAULT_DATA_ROWS 1000

/* What the command line asked for. Strings are borrowed from argv. */
struct report_args {
	struct ct_options opts;
	const char *format;
	const char *output;
	const char *analyses; /* comma-separated, NULL: all */
	long max_rows;        /* -1: the format's default */
	char *const *paths;
	size_t path_count;
	const char *live_url; /* --live (record's issue): a relay daemon's session, read live */
	const char *plot_dir; /* --plot: where the plots go, NULL: none */
	enum ct_text_detail detail; /* --brief, --details: how much text */
};

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: cudatrace report [OPTIONS] TRACE...\n"
	        "\n"
	        "Reads the traces (directories made by `cudatrace record`, or any directory\n"
	        "holding LTTng traces) in one pass and reports memory over time, the peak and\n"
	        "what was live at it, leaks, fragmentation and every failed allocation.\n"
	        "\n"
	        "Options:\n"
	        "  -f, --format=FORMAT     the format (default text):\n");
	ct_format_help(out, CT_FORMAT_REPORT, 28, 9);
	fprintf(out,
	        "  -o, --output=FILE       write the report to FILE instead of stdout\n"
	        "  -p, --pid=PID           only this process (repeatable)\n"
	        "  -P, --process=NAME      only processes with this name (repeatable)\n"
	        "  -d, --device=N          only this device (repeatable)\n"
	        "      --from=TIME         only from TIME on\n"
	        "      --to=TIME           only until TIME\n"
	        "                          TIME: ns on the trace clock, or +N[ns|us|ms|s] from\n"
	        "                          the first event (e.g. +1.5s)\n"
	        "      --nvtx=RANGE        only what happens inside NVTX ranges named RANGE\n"
	        "  -a, --analysis=LIST     only these analyses (comma-separated):");
	for (size_t i = 0; ct_analyses[i]; i++)
		fprintf(out, " %s", ct_analyses[i]->name);
	fprintf(
	    out,
	    "\n"
	    "      --live=URL          read a session while it is recorded, from an\n"
	    "                          lttng-relayd (URL: net://HOST/host/HOSTNAME/SESSION,\n"
	    "                          as `cudatrace record --live` prints it)\n"
	    "      --brief             text, html: the first page alone (the diagnosis: what\n"
	    "                          happened, where, what to do)\n"
	    "      --details           text, html: the first page, then every section and list\n"
	    "                          (default: the first page, then the main tables)\n"
	    "  -n, --max-rows=N        entries per list (default %d for text, %d for csv\n"
	    "                          and json; 0: all)\n"
	    "      --plot=DIR          also draw plots into DIR (created if missing): memory\n"
	    "                          over time per process and device, and the transfer\n"
	    "                          hotspots, as SVG and PNG\n"
	    "      --debug-dir=DIRS    look for the program's files and their debug\n"
	    "                          information here first, by build id\n"
	    "                          (DIR/.build-id/xx/...) or debug link\n"
	    "                          (colon-separated directories)\n"
	    "  -h, --help              this help\n"
	    "\n"
	    "Exit status: 0 success, 1 failure, 2 wrong arguments or unusable input.\n",
	    DEFAULT_TEXT_ROWS, DEFAULT_DATA_ROWS);
}

#define usage_error(...) arg_usage_error("report", __VA_ARGS__)

static int parse_long(const char *text, long min, long max, long *value)
{
	char *end;

	errno = 0;
	*value = strtol(text, &end, 10);
	return errno || end == text || *end || *value < min || *value > max ? -1 : 0;
}

/*
 * TIME: an absolute ns count (digits only), or +N[unit] from the first
 * event, N digits with at most one decimal point. strtod alone would take
 * "nan", "inf", "0x1p3", blanks and signs; those are not times. -1 when
 * TEXT is not a time, -2 when it is one too large for the trace clock.
 */
static int parse_time(const char *text, int64_t *ns, bool *relative)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1 } };
	const char *number = text;
	size_t digits = 0, len;
	double value;

	*relative = text[0] == '+';
	if (*relative)
		number++;
	len = strspn(number, "0123456789.");
	for (size_t i = 0; i < len; i++)
		digits += number[i] != '.';
	if (!digits || len - digits > 1)
		return -1;
	if (!*relative) {
		unsigned long long abs_ns;

		if (number[len] || len != digits)
			return -1;
		errno = 0;
		abs_ns = strtoull(number, NULL, 10);
		if (errno || abs_ns > INT64_MAX)
			return -2;
		*ns = (int64_t)abs_ns;
		return 0;
	}
	value = strtod(number, NULL);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(number + len, units[i].suffix)) {
			double scaled = value * units[i].scale;

			/* 2^63 ns is about 9.22e18 */
			if (!(scaled < 9.2e18))
				return -2;
			*ns = (int64_t)scaled;
			return 0;
		}
	return -1;
}

/* One --from or --to. 0, or EXIT_USAGE after a message naming it. */
static int time_option(const char *name, const char *arg, bool *has, int64_t *ns, bool *relative)
{
	int ret = parse_time(arg, ns, relative);

	*has = true;
	if (ret == -2)
		return usage_error("--%s=%s: too far (at most 9200000000000000000 ns, 292 years)",
		                   name, arg);
	if (ret < 0)
		return usage_error("--%s=%s is not a time: nanoseconds on the trace clock, or "
		                   "+N[ns|us|ms|s] from the first event (e.g. +1.5s)",
		                   name, arg);
	return 0;
}

/* " memory fragmentation ...": the analyses' names, for messages. */
static const char *analysis_names(void)
{
	static char names[256];

	if (!names[0])
		for (size_t i = 0; ct_analyses[i]; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), " %s",
			         ct_analyses[i]->name);
	return names;
}

static int add_filter(const char *what, size_t *count, const char *arg)
{
	if (*count == CT_FILTER_MAX)
		return usage_error("too many %s filters", what);
	(*count)++;
	return 0;
}

/*
 * LIST of --analysis: names of analyses, comma-separated, none empty. 0,
 * or EXIT_USAGE after a message naming what is wrong.
 */
static int check_analyses(const char *list)
{
	const char *name = list;

	if (!*list)
		return usage_error("%s", "--analysis needs at least one analysis");
	for (;;) {
		size_t n = strcspn(name, ",");
		char one[64];

		if (!n)
			return usage_error("--analysis=%s: an empty name in the list", list);
		snprintf(one, sizeof(one), "%.*s", (int)n, name);
		if (n >= sizeof(one) || !ct_analysis_find(one))
			return usage_error("unknown analysis '%.*s' (one of:%s)", (int)n, name,
			                   analysis_names());
		if (!name[n])
			return 0;
		name += n + 1;
	}
}

enum {
	OPT_FROM = 256,
	OPT_TO,
	OPT_NVTX,
	OPT_LIVE /* --live: record's issue */,
	OPT_PLOT,
	OPT_BRIEF,
	OPT_DETAILS,
	OPT_DEBUG_DIR,
};

static const struct option long_options[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "process", required_argument, NULL, 'P' },
	{ "device", required_argument, NULL, 'd' },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "nvtx", required_argument, NULL, OPT_NVTX },
	{ "analysis", required_argument, NULL, 'a' },
	{ "max-rows", required_argument, NULL, 'n' },
	{ "help", no_argument, NULL, 'h' },
	{ "live", required_argument, NULL, OPT_LIVE },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "brief", no_argument, NULL, OPT_BRIEF },
	{ "details", no_argument, NULL, OPT_DETAILS },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ NULL, 0, NULL, 0 },
};

/* One option. 0, -1 for --help, or EXIT_USAGE. */
static int parse_option(struct report_args *a, int c, const char *arg)
{
	struct ct_options *o = &a->opts;
	long value;

	switch (c) {
	case 'f':
		a->format = arg;
		if (!ct_format_find(CT_FORMAT_REPORT, arg)) {
			char names[128];

			return usage_error("unknown format '%s' (%s)", arg,
			                   ct_format_names(CT_FORMAT_REPORT, names, sizeof(names)));
		}
		return 0;
	case 'o':
		a->output = arg;
		return *arg ? 0 : usage_error("%s", "--output needs a file name");
	case 'p':
		if (parse_long(arg, 0, LONG_MAX, &value) < 0)
			return usage_error("'%s' is not a process id", arg);
		if (add_filter("--pid", &o->pid_count, arg))
			return EXIT_USAGE;
		o->pids[o->pid_count - 1] = value;
		return 0;
	case 'P':
		if (add_filter("--process", &o->procname_count, arg))
			return EXIT_USAGE;
		o->procnames[o->procname_count - 1] = arg;
		return 0;
	case 'd':
		if (parse_long(arg, 0, 254, &value) < 0)
			return usage_error("'%s' is not a device number (0 to 254)", arg);
		if (add_filter("--device", &o->device_count, arg))
			return EXIT_USAGE;
		o->devices[o->device_count - 1] = (uint8_t)value;
		return 0;
	case OPT_FROM:
		return time_option("from", arg, &o->has_from, &o->from_ns, &o->from_relative);
	case OPT_TO:
		return time_option("to", arg, &o->has_to, &o->to_ns, &o->to_relative);
	case OPT_NVTX:
		o->nvtx_range = arg;
		return 0;
	case 'a':
		a->analyses = arg;
		return check_analyses(arg);
	case 'n':
		if (parse_long(arg, 0, 1000000000, &value) < 0)
			return usage_error("'%s' is not a row count", arg);
		a->max_rows = value;
		return 0;
	case OPT_LIVE: /* --live (record's issue): src.ctf.lttng-live in the reader */
		if (strncmp(arg, "net://", 6) && strncmp(arg, "net4://", 7) &&
		    strncmp(arg, "net6://", 7))
			return usage_error("--live=%s: give the relay daemon's URL, "
			                   "net://HOST/host/HOSTNAME/SESSION",
			                   arg);
		a->live_url = arg;
		return 0;
	case OPT_PLOT:
		a->plot_dir = arg;
		return *arg ? 0 : usage_error("%s", "--plot needs a directory");
	case OPT_BRIEF:
	case OPT_DETAILS:
		if (a->detail != CT_TEXT_MAIN &&
		    a->detail != (c == OPT_BRIEF ? CT_TEXT_BRIEF : CT_TEXT_DETAILS))
			return usage_error("%s", "--brief and --details contradict each other");
		a->detail = c == OPT_BRIEF ? CT_TEXT_BRIEF : CT_TEXT_DETAILS;
		return 0;
	case OPT_DEBUG_DIR:
		o->debug_dirs = arg;
		return *arg ? 0 : usage_error("%s", "--debug-dir needs a directory");
	case 'h':
		return -1;
	default:
		return usage_error("%s", "unknown option");
	}
}

/* Parses argv. 0, -1 for --help, or EXIT_USAGE. */
static int parse_args(struct report_args *a, int argc, char **argv)
{
	const char *from_arg = NULL, *to_arg = NULL;
	int c;

	ct_options_init(&a->opts);
	a->format = "text";
	a->max_rows = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:p:P:d:a:n:h", long_options, NULL)) != -1) {
		int ret;

		if (c == '?')
			return usage_error("unknown option '%s'", argv[optind - 1]);
		if (c == ':')
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		if (c == OPT_FROM)
			from_arg = optarg;
		else if (c == OPT_TO)
			to_arg = optarg;
		ret = parse_option(a, c, optarg);
		if (ret)
			return ret;
	}
	/* a window of both kinds is checked by the reader, once it knows the first event */
	if (a->opts.has_from && a->opts.has_to && a->opts.from_relative == a->opts.to_relative &&
	    a->opts.from_ns > a->opts.to_ns)
		return usage_error("the window ends before it starts: --from=%s is after --to=%s",
		                   from_arg, to_arg);
	a->paths = argv + optind;
	a->path_count = (size_t)(argc - optind);
	for (size_t i = 0; i < a->path_count; i++)
		if (strlen(a->paths[i]) >= PATH_MAX)
			return usage_error(
			    "'%.60s...%s' is too long for a path (%zu bytes, at most %d)",
			    a->paths[i], a->paths[i] + strlen(a->paths[i]) - 60,
			    strlen(a->paths[i]), PATH_MAX - 1);
	/* --live (record's issue): the URL is the only input. */
	if (a->live_url && a->path_count)
		return usage_error("%s",
		                   "--live reads one session: give no trace directory with it");
	if (a->live_url) {
		a->paths = (char *const *)&a->live_url;
		a->path_count = 1;
	}
	if (!a->path_count)
		return usage_error("%s", "no trace given");
	if (a->detail != CT_TEXT_MAIN && strcmp(a->format, "text") && strcmp(a->format, "html"))
		return usage_error("--%s is for the text and HTML reports, not %s",
		                   a->detail == CT_TEXT_BRIEF ? "brief" : "details", a->format);
	if (a->max_rows < 0)
		a->max_rows = !strcmp(a->format, "text") || !strcmp(a->format, "html")
		                  ? DEFAULT_TEXT_ROWS
		                  : DEFAULT_DATA_ROWS;
	a->opts.max_rows = a->max_rows ? (size_t)a->max_rows : SIZE_MAX;
	return 0;
}

/* The reader's error on stderr; returns 1. */
static int reader_error(const struct ct_reader *reader)
{
	fprintf(stderr, "cudatrace report: %s\n", ct_reader_stats(reader)->error);
	return 1;
}

/* Adds the analyses named in LIST (all when NULL). 0, 1 or EXIT_USAGE. */
static int add_analyses(struct ct_reader *reader, const char *list)
{
	char *copy, *name, *save = NULL;
	int ret = 0;

	if (!list) {
		for (size_t i = 0; ct_analyses[i]; i++)
			if (ct_reader_add(reader, ct_analyses[i]) < 0)
				return reader_error(reader);
		return 0;
	}
	copy = strdup(list);
	if (!copy) {
		fprintf(stderr, "cudatrace report: out of memory\n");
		return 1;
	}
	/* check_analyses() made sure each name is one; one named twice is added once */
	for (name = strtok_r(copy, ",", &save); name && !ret; name = strtok_r(NULL, ",", &save)) {
		const struct ct_analysis_class *cls = ct_analysis_find(name);
		bool seen = false;

		for (const char *p = list; p < list + (name - copy) && !seen;
		     p += strcspn(p, ",") + 1)
			seen = strcspn(p, ",") == strlen(name) && !strncmp(p, name, strlen(name));
		if (!seen && ct_reader_add(reader, cls) < 0)
			ret = reader_error(reader);
	}
	free(copy);
	return ret;
}

static int write_report(const struct report_args *a, const struct ct_doc *doc)
{
	const struct ct_writer_class *writer = ct_format_find(CT_FORMAT_REPORT, a->format)->writer;
	struct ct_writer_options wopts = { .max_rows = (size_t)a->max_rows, .detail = a->detail };
	FILE *out = stdout;
	int ret;

	if (a->output) {
		out = fopen(a->output, "w");
		if (!out) {
			fprintf(stderr, "cudatrace report: cannot write '%s': %s\n", a->output,
			        strerror(errno));
			return 1;
		}
	}
	ret = writer->write(ct_doc_root(doc), &wopts, out);
	if (fflush(out) != 0 && ret == 0) {
		fprintf(stderr, "cudatrace report: cannot write the report: %s\n", strerror(errno));
		ret = -1;
	}
	if (a->output && fclose(out) != 0 && ret == 0) {
		fprintf(stderr, "cudatrace report: cannot write '%s': %s\n", a->output,
		        strerror(errno));
		ret = -1;
	}
	return ret < 0 ? 1 : 0;
}

static void free_inputs(char **inputs, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(inputs[i]);
	free(inputs);
}

/* Each path as the reader should see it: of a flight recorder's output,
 * the newest snapshot alone (snapshot.h). NULL when out of memory. */
static char **resolve_inputs(char *const *paths, size_t count)
{
	char **inputs = calloc(count, sizeof(*inputs));
	char input[4096];

	if (!inputs)
		return NULL;
	for (size_t i = 0; i < count; i++) {
		snapshot_newest(paths[i], input, sizeof(input));
		inputs[i] = strdup(input);
		if (!inputs[i]) {
			free_inputs(inputs, i);
			return NULL;
		}
	}
	return inputs;
}

/*
 * Says WHY on stderr; with MARK, the report is incomplete, the first reason
 * given its trace.error.
 */
static void note_loss(struct ct_reader *reader, bool mark, const char *why)
{
	fprintf(stderr, "cudatrace report: warning: %s\n", why);
	if (mark)
		ct_reader_note_cut(reader, why);
}

/*
 * The stream files of trace directory TRACE that its index names
 * (index/NAME.idx, which LTTng writes for each) but that are not there:
 * each said, and the trace incomplete.
 */
static void note_missing_streams(struct ct_reader *reader, bool mark, const char *trace)
{
	char path[PATH_MAX], why[8 * PATH_MAX], shown[4 * 256], shown_trace[4 * PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (snprintf(path, sizeof(path), "%s/index", trace) >= (int)sizeof(path) ||
	    !(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (de->d_name[0] == '.' || n <= 4 || strcmp(de->d_name + n - 4, ".idx") ||
		    snprintf(path, sizeof(path), "%s/%.*s", trace, (int)(n - 4), de->d_name) >=
		        (int)sizeof(path) ||
		    lstat(path, &st) == 0)
			continue;
		snprintf(why, sizeof(why),
		         "stream file '%s' of '%s' is missing (its index is there): its events are "
		         "not in the report",
		         ct_format_text(path + strlen(trace) + 1, shown, sizeof(shown)),
		         ct_format_text(trace, shown_trace, sizeof(shown_trace)));
		note_loss(reader, mark, why);
	}
	closedir(d);
}

/*
 * The trace in PATH, of notes INFO, whose recorder died. While its session
 * was never closed (stale.h closes it once the programs it records are
 * gone), LTTng may still hold some of it, or have lost it with the daemon:
 * said, and the trace cut (true). Closed later, it is whole, but how the
 * program ended was not recorded: said only.
 */
static bool note_recorder_death(struct ct_reader *reader, bool mark, const char *path,
                                const struct trace_info *info)
{
	const char *program = info->program[0] ? info->program : "its program";
	char why[600];

	/* notes without a recorder's pid are not a record's that died */
	if (info->end == TRACE_RUNNING && info->recorder_pid > 0 &&
	    !trace_info_recorder_running(info)) {
		snprintf(why, sizeof(why),
		         "the trace in %s was cut: its cudatrace record (pid %d) died while it "
		         "recorded %s, and its session was not closed (it still records a program "
		         "that runs, or its session daemon is gone): it may lack what LTTng had "
		         "not yet written",
		         path, info->recorder_pid, program);
		note_loss(reader, mark, why);
		return true;
	}
	if (info->end == TRACE_ABANDONED && info->has_complete && info->complete)
		fprintf(
		    stderr,
		    "cudatrace report: warning: the cudatrace record of the trace in %s (pid %d) "
		    "died; its session was closed once %s had ended, so the trace is whole, but "
		    "how the program ended was not recorded\n",
		    path, info->recorder_pid, program);
	return false;
}

/*
 * What the traces lack, said and the report incomplete: a trace its
 * recorder noted as cut (cudatrace.info's complete=false), which ends
 * where LTTng stopped writing, in whole packets; a stream file its index
 * names that is not there; fewer events than the recorders counted
 * (cudatrace.info's events=: a stream file or the metadata removed since).
 * PATHS are the directories given, INPUTS what the reader read of them;
 * MARK as note_loss's.
 */
static void note_losses(struct ct_reader *reader, bool mark, char *const *paths,
                        char *const *inputs, size_t count)
{
	uint64_t counted = 0, read = ct_reader_stats(reader)->events;
	GPtrArray *traces = g_ptr_array_new_with_free_func(g_free);
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	bool all_counted = true;
	char why[600];

	for (size_t i = 0; i < count; i++) {
		struct trace_info info;
		struct stat st;

		if (trace_info_read(paths[i], &info) < 0 || stat(paths[i], &st) != 0) {
			all_counted = false;
			continue;
		}
		/* a directory named twice is read once: its events are counted once */
		if (!g_hash_table_add(seen,
		                      g_strdup_printf("recorder %ju:%ju", (uintmax_t)st.st_dev,
		                                      (uintmax_t)st.st_ino)))
			continue;
		if (note_recorder_death(reader, mark, paths[i], &info))
			continue;
		if (!info.has_counts) {
			all_counted = false;
			continue;
		}
		counted += info.events;
		if (!info.has_complete || info.complete)
			continue;
		snprintf(why, sizeof(why), "the trace in %s was cut before %s ended: %s", paths[i],
		         info.program[0] ? info.program : "its program",
		         trace_info_cut_reason(info.cut));
		note_loss(reader, mark, why);
	}
	/* one input at a time, as traces_first: the reader has said what names a trace twice */
	for (size_t i = 0; i < count; i++) {
		const char *one[] = { inputs[i] };

		g_ptr_array_set_size(traces, 0);
		if (ct_discover_traces(one, 1, traces, why, sizeof(why)) != CT_DISCOVERY_OK)
			continue;
		for (guint t = 0; t < traces->len; t++)
			if (g_hash_table_add(seen, g_strdup(g_ptr_array_index(traces, t))))
				note_missing_streams(reader, mark, g_ptr_array_index(traces, t));
	}
	g_hash_table_destroy(seen);
	g_ptr_array_free(traces, TRUE);
	if (all_counted && read < counted) {
		snprintf(why, sizeof(why),
		         "%s %" PRIu64 " of the %" PRIu64 " events %s recorder%s counted "
		         "(cudatrace.info): %s",
		         count == 1 ? "the trace holds" : "the traces hold", read, counted,
		         count == 1 ? "its" : "their", count == 1 ? "" : "s",
		         read         ? "stream files are missing or damaged"
		         : count == 1 ? "its metadata or its stream files are missing"
		                      : "their metadata or their stream files are missing");
		note_loss(reader, mark, why);
	}
}

/*
 * The inputs that hold a trace, first in INPUTS (their order kept); returns
 * how many. A directory `cudatrace record` made for a program that left no
 * event (its CUDA runtime refused the driver before the tracer was loaded)
 * holds only what record kept beside it, for the environment section.
 */
static size_t traces_first(char **inputs, size_t count)
{
	GPtrArray *found = g_ptr_array_new_with_free_func(g_free);
	size_t traces = 0;
	char why[512];

	for (size_t i = 0; i < count; i++) {
		const char *one[] = { inputs[i] };
		char *input = inputs[i];

		g_ptr_array_set_size(found, 0);
		if (ct_discover_traces(one, 1, found, why, sizeof(why)) != CT_DISCOVERY_OK)
			continue;
		memmove(inputs + traces + 1, inputs + traces, (i - traces) * sizeof(*inputs));
		inputs[traces++] = input;
	}
	g_ptr_array_free(found, TRUE);
	return traces;
}

/* Whether a recorded process loaded something: then a report can say what. */
static bool recorded_anything(const struct ct_recorded *recorded)
{
	for (size_t i = 0; i < recorded->count; i++)
		if (recorded->processes[i].object_count)
			return true;
	return false;
}

/*
 * Reads the traces among INPUTS; with none, but a recorder's lists, the
 * report is made of those alone. The reader's status.
 */
static enum ct_reader_status read_inputs(struct ct_reader *reader, char **inputs, size_t count,
                                         const struct ct_recorded *recorded)
{
	size_t traces = traces_first(inputs, count);

	if (!traces && recorded_anything(recorded))
		return CT_READER_OK;
	/* None: the reader says why each input is no trace. */
	return ct_reader_read(reader, (const char *const *)inputs, traces ? traces : count);
}

int cmd_report(int argc, char **argv)
{
	struct ct_recorded recorded = { 0 };
	struct report_args a = { 0 };
	struct ct_reader *reader = NULL;
	struct ct_doc *doc = NULL;
	const struct ct_result *results;
	size_t result_count;
	char **inputs = NULL;
	enum ct_reader_status status;
	int ret = parse_args(&a, argc, argv);

	if (ret < 0) {
		usage(stdout);
		return 0;
	}
	if (ret)
		return ret;
	/* before the decoding threads start: it may change the environment */
	(void)ct_symbolizer_choose_servers();
	if (!a.live_url) {
		diag_set_prefix("cudatrace report");
		stale_cleanup_before_reading();
		if (recorded_read(a.paths, a.path_count, &recorded) < 0) {
			fprintf(stderr, "cudatrace report: out of memory\n");
			return 1;
		}
		a.opts.recorded = &recorded;
	}
	reader = ct_reader_create(&a.opts);
	doc = ct_doc_create();
	inputs = resolve_inputs(a.paths, a.path_count);
	if (!reader || !doc || !inputs) {
		fprintf(stderr, "cudatrace report: out of memory\n");
		ret = 1;
		goto end;
	}
	ret = add_analyses(reader, a.analyses);
	if (ret)
		goto end;
	status = read_inputs(reader, inputs, a.path_count, &recorded);
	if (status == CT_READER_TRUNCATED)
		fprintf(stderr, "cudatrace report: warning: %s\n", ct_reader_stats(reader)->error);
	/* what is lost is said also when nothing is left to report */
	if (!a.live_url)
		note_losses(reader, status != CT_READER_INPUT_ERROR && status != CT_READER_ERROR,
		            a.paths, inputs, a.path_count);
	if (status == CT_READER_INPUT_ERROR || status == CT_READER_ERROR) {
		fprintf(stderr, "cudatrace report: %s\n", ct_reader_stats(reader)->error);
		ret = status == CT_READER_INPUT_ERROR ? EXIT_USAGE : 1;
		goto end;
	}
	if (ct_reader_finish(reader) < 0 || ct_reader_report(reader, doc) < 0) {
		ret = reader_error(reader);
		goto end;
	}
	results = ct_reader_results(reader, &result_count);
	/* How the program ended, as its recorder saw it: not in the trace, beside it. */
	if (!a.live_url) {
		char *bad;

		last_words_section_write(doc, results, result_count, a.paths, a.path_count, &bad);
		if (bad)
			fprintf(stderr,
			        "cudatrace report: warning: %s is damaged or unreadable: the "
			        "program's last words are not quoted\n",
			        bad);
		g_free(bad);
		death_section_write(doc, results, result_count, a.paths, a.path_count);
	}
	/* the diagnosis, once every section is in */
	ct_findings_write(doc, results, result_count);
	if (ct_doc_error(doc)) {
		fprintf(stderr, "cudatrace report: cannot build the report: %s\n",
		        ct_doc_error(doc));
		ret = 1;
		goto end;
	}
	ret = write_report(&a, doc);
	if (!ret && a.plot_dir && ct_plot_write(ct_doc_root(doc), a.plot_dir) < 0)
		ret = 1;
end:
	if (inputs)
		free_inputs(inputs, a.path_count);
	ct_doc_destroy(doc);
	ct_reader_destroy(reader);
	recorded_free(&recorded);
	return ret;
}
