/* SPDX-License-Identifier: MIT */
/*
 * list.c - `cudatrace list [DIR]`: the traces in DIR (default: the current
 * directory), one line each, oldest first: program, date, duration, peak
 * GPU memory, allocation failures and how the program ended.
 *
 * A trace made by `cudatrace record` carries those numbers in its
 * cudatrace.info; any other trace (made by hand, or by a record that was
 * killed before it could summarise) is read with the analyzers, which
 * takes longer.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arg-check.h"
#include "diag.h"
#include "common/document.h"
#include "stale.h"
#include "summary.h"
#include "trace-info.h"
#include "verbs.h"
#include "report/writer.h"

/*
 * How many directories down from a listed entry its CTF metadata may sit
 * (relay daemons nest most): as deep as `cudatrace report` looks.
 */
#define MAX_TRACE_DEPTH 12
/* How much further a trace is looked for, only to say that it is too deep. */
#define DEEPER_DEPTH  64
#define DEEPER_BUDGET 20000

struct entry {
	char name[256];
	struct trace_info info;
	bool readable;                   /* the numbers below are known */
	long long start_ns, duration_ns; /* realtime; -1 if unknown */
	uint64_t peak_bytes, failures;
	char program[256];
	char end[64];
};

static void print_help(void)
{
	fputs("Usage: cudatrace list [DIR]\n"
	      "List the cudatrace traces in DIR (default: the current directory), oldest\n"
	      "first: program, date, duration, peak GPU memory, allocation failures and how\n"
	      "the program ended. Traces without the notes `cudatrace record` leaves are\n"
	      "read, which takes longer.\n"
	      "\n"
	      "  -h, --help   show this help\n"
	      "\n"
	      "Exit status: 0; 2 when DIR is not a readable directory, or holds a trace\n"
	      "nested deeper than list and report look (12 directories below an entry).\n"
	      "See cudatrace-list(1).\n",
	      stdout);
}

/* How a search for metadata went. */
struct search {
	bool cut;    /* some directory was not looked into: it lies deeper than the limit */
	long budget; /* directories it may still open; < 0: none */
};

/*
 * The first CTF metadata file within DEPTH levels under PATH, into OUT
 * (when not NULL). Returns 1 when there is one.
 */
static int find_metadata_in(const char *path, int depth, char *out, size_t len,
                            struct search *search)
{
	char sub[4096];
	struct dirent *de;
	int found = 0;
	DIR *d;

	if (search->budget-- <= 0)
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		/* lstat: a symbolic link (to `/`, say) is never followed out of PATH */
		if (snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) >= (int)sizeof(sub) ||
		    lstat(sub, &st) != 0)
			continue;
		if (S_ISREG(st.st_mode) && strcmp(de->d_name, "metadata") == 0) {
			found = 1;
			if (out)
				snprintf(out, len, "%s", sub);
		} else if (S_ISDIR(st.st_mode) && depth == 0) {
			search->cut = true;
		} else if (S_ISDIR(st.st_mode)) {
			found = find_metadata_in(sub, depth - 1, out, len, search);
		}
	}
	closedir(d);
	return found;
}

static int find_metadata(const char *path, int depth, char *out, size_t len)
{
	struct search search = { .budget = DEEPER_BUDGET };

	return find_metadata_in(path, depth, out, len, &search);
}

static int holds_trace(const char *path, int depth)
{
	return find_metadata(path, depth, NULL, 0);
}

/*
 * PATH holds no trace within MAX_TRACE_DEPTH directories but does hold
 * one further down: its metadata file goes to OUT. Returns 1 then.
 */
static int holds_deeper_trace(const char *path, char *out, size_t len)
{
	struct search search = { .budget = DEEPER_BUDGET };

	if (find_metadata_in(path, MAX_TRACE_DEPTH, NULL, 0, &search) || !search.cut)
		return 0;
	search.budget = DEEPER_BUDGET;
	return find_metadata_in(path, DEEPER_DEPTH, out, len, &search);
}

/* The number after KEY ("offset_s = ") in TEXT, or -1. */
static long long number_after(const char *text, size_t len, const char *key)
{
	const char *p = memmem(text, len, key, strlen(key));

	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/*
 * LTTng's clock counts ns from boot; its metadata gives the Unix time of
 * its origin (offset_s, offset). Returns that offset in ns, 0 if unknown.
 * The metadata of LTTng-UST is packetised, but the clock's lines are short
 * enough to be read from the raw file.
 */
static long long clock_offset_ns(const char *trace)
{
	static char buf[65536];
	char path[4096];
	long long seconds, cycles;
	size_t n;
	FILE *f;

	if (!find_metadata(trace, MAX_TRACE_DEPTH, path, sizeof(path)))
		return 0;
	f = fopen(path, "rb");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* LTTng writes the whole offset in "offset" (ns, its frequency being 1 GHz). */
	seconds = number_after(buf, n, "offset_s = ");
	cycles = number_after(buf, n, "offset = ");
	if (seconds < 0)
		seconds = 0;
	if (cycles < 0 || seconds * 1000000000LL + cycles < 1000000000000000000LL)
		return 0; /* not a Unix time after 2001: unknown */
	return seconds * 1000000000LL + cycles;
}

static void describe_end(const struct trace_info *info, char *buf, size_t len)
{
	switch (info->end) {
	case TRACE_EXITED:
		snprintf(buf, len, "exit %d", info->end_code);
		break;
	case TRACE_KILLED:
		snprintf(buf, len, "killed (SIG%s)",
		         sigabbrev_np(info->end_code) ? sigabbrev_np(info->end_code) : "?");
		break;
	case TRACE_ABANDONED:
		snprintf(buf, len, "recorder died");
		break;
	case TRACE_RUNNING:
		snprintf(buf, len, "%s",
		         trace_info_recorder_running(info) ? "running" : "recorder died");
		break;
	}
	/* The trace lacks part of what the program did: cudatrace.info says why. */
	if (info->has_complete && !info->complete) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, ", trace cut (%s)",
		         trace_info_cut_name(info->cut));
	}
}

/* The numbers from cudatrace.info, when it has them all. */
static bool from_info(struct entry *e)
{
	const struct trace_info *info = &e->info;

	snprintf(e->program, sizeof(e->program), "%s", info->program);
	e->start_ns = info->start_ns ? info->start_ns : -1;
	describe_end(info, e->end, sizeof(e->end));
	if (info->end == TRACE_EXITED || info->end == TRACE_KILLED)
		e->duration_ns = info->end_ns - info->start_ns;
	if (!info->has_summary || e->duration_ns < 0)
		return false;
	e->peak_bytes = info->peak_bytes;
	e->failures = info->failures;
	e->readable = true;
	return true;
}

/* The numbers from the trace itself. */
static void from_trace(struct entry *e, const char *path)
{
	struct summary *s;
	const struct summary_numbers *n;

	/* The reader's messages would drown the list: one word in the table is enough. */
	diag_set_quiet(1);
	s = summary_read(path);
	diag_set_quiet(0);
	if (!s) {
		snprintf(e->end, sizeof(e->end), "unreadable");
		return;
	}
	n = summary_numbers(s);
	if (!e->program[0])
		snprintf(e->program, sizeof(e->program), "%s", n->program);
	/* The reader's times are on the trace clock: its origin makes them Unix times. */
	if (e->start_ns < 0 && n->first_ns <= n->last_ns) {
		long long offset = clock_offset_ns(path);

		if (offset > 0)
			e->start_ns = n->first_ns + offset;
	}
	if (e->duration_ns < 0 && n->first_ns <= n->last_ns)
		e->duration_ns = n->last_ns - n->first_ns;
	e->peak_bytes = n->peak_bytes;
	e->failures = n->failures;
	e->readable = true;
	summary_destroy(s);
}

/* A trace too deep to be listed: said once, and the exit status is 2. */
static void too_deep(const char *entry, const char *metadata)
{
	char trace[4096], shown_entry[4 * PATH_MAX], shown_trace[4 * PATH_MAX];
	const char *slash = strrchr(metadata, '/');
	int depth = 0;

	snprintf(trace, sizeof(trace), "%.*s", slash ? (int)(slash - metadata) : 0, metadata);
	for (const char *p = trace + strlen(entry); *p; p++)
		depth += *p == '/';
	diag_error("%s holds a trace %d directories down, deeper than the %d that list and "
	           "report look: give the trace's own directory, %s",
	           ct_format_text(entry, shown_entry, sizeof(shown_entry)), depth, MAX_TRACE_DEPTH,
	           ct_format_text(trace, shown_trace, sizeof(shown_trace)));
}

/*
 * Fills E for the entry NAME of DIR. Returns 0; -1 when it holds no trace
 * (left out); -2 when it holds one too deep to be read (said).
 */
static int load_entry(struct entry *e, const char *dir, const char *name)
{
	char path[4096], deeper[4096];
	bool has_info;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -1;
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->start_ns = -1;
	e->duration_ns = -1;
	has_info = trace_info_read(path, &e->info) == 0;
	if (!has_info && holds_deeper_trace(path, deeper, sizeof(deeper))) {
		too_deep(path, deeper);
		return -2;
	}
	if (!has_info && !holds_trace(path, MAX_TRACE_DEPTH))
		return -1;
	if (has_info && from_info(e))
		return 0;
	if (!holds_trace(path, MAX_TRACE_DEPTH)) {
		if (!e->end[0])
			snprintf(e->end, sizeof(e->end), "no trace data");
		return 0;
	}
	from_trace(e, path);
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

static char *format_bytes(uint64_t bytes, char *buf, size_t len)
{
	struct ct_node node;

	memset(&node, 0, sizeof(node));
	node.type = CT_NODE_U64;
	node.unit = CT_UNIT_BYTES;
	node.value.u64 = bytes;
	return ct_format_value(&node, INT64_MIN, buf, len);
}

/*
 * S, a name from the file system or the trace (a directory, a program),
 * escaped for a terminal (ct_format_text), then blanks up to WIDTH
 * characters, then a blank.
 */
static void print_name(const char *s, long width)
{
	char buf[4 * NAME_MAX];
	long shown = g_utf8_strlen(ct_format_text(s, buf, sizeof(buf)), -1);

	printf("%s%*s ", buf, shown < width ? (int)(width - shown) : 0, "");
}

static void print_entry(const struct entry *e)
{
	char date[32] = "?", duration[32] = "?", peak[32] = "?", failures[32] = "?";

	if (e->start_ns > 0) {
		time_t t = (time_t)(e->start_ns / 1000000000LL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	}
	if (e->duration_ns >= 0)
		snprintf(duration, sizeof(duration), "%.1f s", (double)e->duration_ns / 1e9);
	if (e->readable) {
		format_bytes(e->peak_bytes, peak, sizeof(peak));
		snprintf(failures, sizeof(failures), "%" PRIu64, e->failures);
	}
	print_name(e->name, 32);
	print_name(e->program[0] ? e->program : "?", 16);
	printf("%-19s %10s %12s %8s  %s\n", date, duration, peak, failures,
	       e->end[0] ? e->end : "-");
}

static int grow(struct entry **entries, size_t n, size_t *cap)
{
	struct entry *grown;

	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 16;
	grown = realloc(*entries, *cap * sizeof(**entries));
	if (!grown) {
		errno = ENOMEM;
		return -1;
	}
	*entries = grown;
	return 0;
}

/*
 * The traces directly in DIR; or DIR alone when it is a trace of
 * `cudatrace record` itself (its ust/ and snapshot directories are parts
 * of it, not traces of their own).
 */
static int collect(const char *dir, struct entry **out, size_t *count, int *too_deep_count)
{
	struct entry *entries = NULL;
	size_t n = 0, cap = 0;
	struct trace_info info;
	struct dirent *de;
	DIR *d;
	int ret;

	*too_deep_count = 0;
	if (trace_info_read(dir, &info) == 0) {
		if (grow(&entries, n, &cap) < 0)
			return -1;
		if (load_entry(&entries[n], dir, ".") == 0)
			n++;
		goto done;
	}
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[4096];
		struct stat st;

		/* A symbolic link is not followed: it may lead anywhere (`/proc/1/root`). */
		if (de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if (grow(&entries, n, &cap) < 0) {
			free(entries);
			closedir(d);
			return -1;
		}
		ret = load_entry(&entries[n], dir, de->d_name);
		if (ret == 0)
			n++;
		else if (ret == -2)
			(*too_deep_count)++;
	}
	closedir(d);
done:
	if (n > 1)
		qsort(entries, n, sizeof(*entries), by_start);
	*out = entries;
	*count = n;
	return 0;
}

int cmd_list(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct entry *entries = NULL;
	const char *dir = ".";
	struct stat st;
	size_t count = 0;
	int c, deep = 0;

	diag_set_prefix("cudatrace list");
	argv[0] = (char *)diag_prefix();
	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		if (c == 'h') {
			print_help();
			return 0;
		}
		fputs("Try 'cudatrace list --help'.\n", stderr);
		return EXIT_USAGE;
	}
	if (argc - optind > 1) {
		diag_error("give one directory at most (see cudatrace list --help)");
		return EXIT_USAGE;
	}
	if (optind < argc)
		dir = argv[optind];
	/* Room for a trace's name and what LTTng nests under it. */
	if (arg_check_path("the directory", dir, NAME_MAX + 128) < 0)
		return EXIT_USAGE;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		diag_error("%s: %s", dir,
		           stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
		return EXIT_USAGE;
	}
	stale_cleanup_before_reading();
	if (collect(dir, &entries, &count, &deep) < 0) {
		diag_error("cannot read %s: %s", dir, strerror(errno));
		return EXIT_USAGE;
	}
	if (count == 0 && !deep) {
		char shown[4 * PATH_MAX];

		printf("No cudatrace traces in %s.\n", ct_format_text(dir, shown, sizeof(shown)));
	} else if (count > 0) {
		printf("%-32s %-16s %-19s %10s %12s %8s  %s\n", "TRACE", "PROGRAM", "DATE",
		       "DURATION", "PEAK", "FAILURES", "END");
		for (size_t i = 0; i < count; i++)
			print_entry(&entries[i]);
	}
	free(entries);
	return deep ? EXIT_USAGE : 0;
}
