/* SPDX-License-Identifier: MIT */
/*
 * stream-groups.c - the stream files of a pass's traces in groups, each
 * read through views of the traces (see stream-groups.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>

#include "contract/events.h"
#include "live.h"
#include "common/log.h"
#include "packet-index.h"
#include "stream-groups.h"
#include "trace-view.h"

/* Group G's most: a pass rarely has more cores than this, and never needs more graphs. */
#define GROUPS_MAX 64
/* The traces' time is cut in this many windows to weigh the groups' work over it. */
#define WINDOWS 64
/*
 * What decoding a byte of a file of the GPU channel costs against a byte
 * of the program's calls: its gpu_batch events pack a record's seven
 * fields in 16 bytes, where a run of repeated calls packs four in 20, and
 * babeltrace2 decodes field by field (callgrind, bench/loop-bench.sh's
 * copy loop: 143 instructions a byte against 74). Weighed by bytes alone,
 * a process that moved to another CPU left one thread both GPU files, and
 * that thread was the slowest.
 */
#define GPU_FILE_COST 2.0

struct group {
	GPtrArray *views;     /* char *, owned: view directories, or the traces themselves */
	GPtrArray *shown;     /* const char *, borrowed: the trace each view shows */
	GArray *trace_of;     /* size_t: the index of that trace */
	bool owned;           /* the views are ours to remove */
	double work;          /* its stream files' bytes, each weighed by its cost */
	double load[WINDOWS]; /* that work in each window */
};

struct ct_stream_groups {
	struct group groups[GROUPS_MAX];
	size_t count;
	double busiest[WINDOWS]; /* the largest load of a group in each window */
};

/* A stream file: its trace, its name, its size, what it costs, when its bytes were written. */
struct stream_file {
	size_t trace;
	char *name;
	uint64_t bytes;
	double cost;          /* of decoding a byte (GPU_FILE_COST), 1 for the program's */
	bool indexed;         /* its index could be read: */
	uint64_t first, last; /* the first packet's start, the last one's end */
	double load[WINDOWS];
};

size_t ct_stream_groups_wanted(void)
{
	const char *env = getenv("CUDATRACE_DECODE_GROUPS");
	char *end;
	unsigned long n;

	if (env && *env) {
		errno = 0;
		n = strtoul(env, &end, 10);
		if (!*end && !errno && n >= 1 && env[0] != '-')
			return n > GROUPS_MAX ? GROUPS_MAX : (size_t)n;
		ct_log_warning("CUDATRACE_DECODE_GROUPS is not a number from 1 on: ignored");
	}
	return CT_STREAM_GROUPS_AUTO;
}

/*
 * The groups FILES call for: one per CT_STREAM_GROUP_BYTES, at most one
 * more than the cores. One more: the thread that merges the groups'
 * events and runs the analyses shares them, and a group whose decoding
 * is slower (the same bytes of smaller events) holds the merge back less
 * when the groups are smaller (bench/loop-bench.sh).
 */
static size_t groups_for(const GPtrArray *files)
{
	uint64_t bytes = 0, n;
	size_t most = MIN((size_t)g_get_num_processors() + 1, GROUPS_MAX);

	for (guint i = 0; i < files->len; i++) {
		const struct stream_file *f = g_ptr_array_index(files, i);

		bytes += MIN(f->bytes, UINT64_MAX - bytes);
	}
	n = bytes / CT_STREAM_GROUP_BYTES + (bytes % CT_STREAM_GROUP_BYTES != 0);
	return n < 1 ? 1 : n > most ? most : (size_t)n;
}

static void group_init(struct group *g, bool owned)
{
	g->views = g_ptr_array_new_with_free_func(g_free);
	g->shown = g_ptr_array_new();
	g->trace_of = g_array_new(FALSE, FALSE, sizeof(size_t));
	g->owned = owned;
}

void ct_stream_groups_destroy(struct ct_stream_groups *groups)
{
	if (!groups)
		return;
	for (size_t i = 0; i < groups->count; i++) {
		struct group *g = &groups->groups[i];

		for (guint v = 0; g->owned && v < g->views->len; v++)
			ct_trace_view_remove(g_ptr_array_index(g->views, v));
		g_ptr_array_free(g->views, TRUE);
		g_ptr_array_free(g->shown, TRUE);
		g_array_free(g->trace_of, TRUE);
	}
	g_free(groups);
}

/* One group: the traces themselves. */
static struct ct_stream_groups *whole(const char *const *traces, size_t count)
{
	struct ct_stream_groups *groups = g_new0(struct ct_stream_groups, 1);
	struct group *g = &groups->groups[0];

	groups->count = 1;
	group_init(g, false);
	for (size_t i = 0; i < count; i++) {
		g_ptr_array_add(g->views, g_strdup(traces[i]));
		g_ptr_array_add(g->shown, (gpointer)traces[i]);
		g_array_append_val(g->trace_of, i);
	}
	return groups;
}

static void stream_file_free(gpointer data)
{
	struct stream_file *f = data;

	g_free(f->name);
	g_free(f);
}

/* F's bytes, weighed by what decoding each costs. */
static double work_of(const struct stream_file *f)
{
	return (double)f->bytes * f->cost;
}

/* The most work first; ties by trace, then name. */
static gint largest_first(gconstpointer a, gconstpointer b)
{
	const struct stream_file *x = *(const struct stream_file *const *)a;
	const struct stream_file *y = *(const struct stream_file *const *)b;

	if (work_of(x) != work_of(y))
		return work_of(x) > work_of(y) ? -1 : 1;
	if (x->trace != y->trace)
		return x->trace < y->trace ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Opens the index of stream file NAME of TRACE. 0, or -1 when it has none it can read. */
static int index_open(struct ct_packet_index *ix, const char *trace, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/index/%s.idx", trace, name) >= (int)sizeof(path) ||
	    ct_packet_index_open(ix, path) < 0)
		return -1;
	if (ix->count == 0) {
		ct_packet_index_close(ix);
		return -1;
	}
	return 0;
}

/* F's times from its index (the packets of a stream file follow each other): f->indexed. */
static void time_range(struct stream_file *f, const char *trace)
{
	struct ct_packet_index_entry head, tail;
	struct ct_packet_index ix;

	if (index_open(&ix, trace, f->name) < 0)
		return;
	if (ct_packet_index_get(&ix, 0, &head) == 0 &&
	    ct_packet_index_get(&ix, ix.count - 1, &tail) == 0 && head.begin <= tail.end) {
		f->indexed = true;
		f->first = head.begin;
		f->last = tail.end;
	}
	ct_packet_index_close(&ix);
}

/*
 * The stream files of the traces, the largest first; NULL when a trace is
 * a live URL, or has no stream file (babeltrace2 says what is wrong with
 * it when it is read as it is).
 */
static GPtrArray *stream_files(const char *const *traces, size_t count)
{
	GPtrArray *files = g_ptr_array_new_with_free_func(stream_file_free);

	for (size_t i = 0; i < count; i++) {
		GPtrArray *names;

		if (ct_live_is_url(traces[i])) {
			g_ptr_array_free(files, TRUE);
			return NULL;
		}
		names = ct_trace_view_streams(traces[i]);
		if (!names->len) {
			g_ptr_array_free(names, TRUE);
			g_ptr_array_free(files, TRUE);
			return NULL;
		}
		for (guint n = 0; n < names->len; n++) {
			struct stream_file *f = g_new0(struct stream_file, 1);
			char path[PATH_MAX];
			struct stat st;

			f->trace = i;
			f->name = g_strdup(g_ptr_array_index(names, n));
			f->cost = g_str_has_prefix(f->name, CT_GPU_CHANNEL "_") ? GPU_FILE_COST : 1;
			if (ct_trace_view_join(path, traces[i], f->name) == 0 &&
			    stat(path, &st) == 0)
				f->bytes = (uint64_t)st.st_size;
			time_range(f, traces[i]);
			g_ptr_array_add(files, f);
		}
		g_ptr_array_free(names, TRUE);
	}
	g_ptr_array_sort(files, largest_first);
	return files;
}

/* The window of WIDTH ns time T (ns after the windows' start) is in; those outside, the nearest. */
static int window_of(double t, double width)
{
	double w = t / width;

	/* compared as a double: converting one beyond int's range is undefined */
	return w <= 0 ? 0 : w >= WINDOWS - 1 ? WINDOWS - 1 : (int)w;
}

/* Adds BYTES written from FROM to TO (ns after the windows' start) to LOAD. */
static void spread(double *load, double width, double from, double to, double bytes)
{
	int w0 = window_of(from, width);
	int w1 = window_of(to, width);

	if (w0 == w1 || to <= from) {
		load[w0] += bytes;
		return;
	}
	for (int w = w0; w <= w1; w++) {
		double lo = MAX(from, w * width), hi = MIN(to, (w + 1) * width);

		if (hi > lo)
			load[w] += bytes * (hi - lo) / (to - from);
	}
}

/* F's work spread evenly over all the windows. */
static void weigh_evenly(struct stream_file *f)
{
	for (int w = 0; w < WINDOWS; w++)
		f->load[w] = work_of(f) / WINDOWS;
}

/*
 * F's work in each window of WIDTH ns from FIRST, its packets' from its
 * index, each spread evenly over its span; evenly over all the windows
 * when F has no index, or its index cannot be read to its end.
 */
static void weigh_file(struct stream_file *f, const char *trace, uint64_t first, double width)
{
	struct ct_packet_index ix;
	bool whole = true;

	if (!f->indexed || index_open(&ix, trace, f->name) < 0) {
		weigh_evenly(f);
		return;
	}
	for (uint64_t i = 0; i < ix.count; i++) {
		struct ct_packet_index_entry e;

		if (ct_packet_index_get(&ix, i, &e) < 0 || e.end < e.begin) {
			whole = false;
			break;
		}
		spread(f->load, width, (double)e.begin - (double)first,
		       (double)e.end - (double)first, (double)(e.content / 8) * f->cost);
	}
	ct_packet_index_close(&ix);
	if (!whole)
		weigh_evenly(f);
}

/*
 * Each file's work in each window of the time its traces' indexes
 * cover (weigh_file). No index at all: no load, and the groups are
 * weighed by their work alone. (The traces of one pass come from one
 * machine's monotonic clock, so their times compare.)
 */
static void weigh(GPtrArray *files, const char *const *traces)
{
	uint64_t first = UINT64_MAX, last = 0;
	double width;

	for (guint n = 0; n < files->len; n++) {
		const struct stream_file *f = g_ptr_array_index(files, n);

		if (f->indexed) {
			first = MIN(first, f->first);
			last = MAX(last, f->last);
		}
	}
	if (first >= last)
		return;
	width = (double)(last - first) / WINDOWS;
	for (guint n = 0; n < files->len; n++) {
		struct stream_file *f = g_ptr_array_index(files, n);

		weigh_file(f, traces[f->trace], first, width);
	}
}

/*
 * How much F in group G adds to the sum over the windows of the busiest
 * group's load: in each window, the group with the most to decode holds
 * the merge back, whatever the others have done.
 */
static double added(const struct ct_stream_groups *groups, const struct group *g,
                    const struct stream_file *f)
{
	double sum = 0;

	for (int w = 0; w < WINDOWS; w++) {
		double with = g->load[w] + f->load[w];

		if (with > groups->busiest[w])
			sum += with - groups->busiest[w];
	}
	return sum;
}

/*
 * The group for F: the one it adds least to, so that files written at the
 * same time (a process's stream and the GPU records of the same moments,
 * on the CPU it ran on then) go to different groups and files written one
 * after the other (the same process on another CPU later) may share one;
 * among equals, the one with the least work, the first of those.
 */
static struct group *chosen(struct ct_stream_groups *groups, const struct stream_file *f)
{
	struct group *best = &groups->groups[0];
	double best_added = added(groups, best, f);

	for (size_t i = 1; i < groups->count; i++) {
		struct group *g = &groups->groups[i];
		double a = added(groups, g, f);

		if (a < best_added || (a == best_added && g->work < best->work)) {
			best = g;
			best_added = a;
		}
	}
	return best;
}

/* F goes in G. */
static void place(struct ct_stream_groups *groups, struct group *g, const struct stream_file *f)
{
	for (int w = 0; w < WINDOWS; w++) {
		g->load[w] += f->load[w];
		groups->busiest[w] = MAX(groups->busiest[w], g->load[w]);
	}
	/* an empty file still costs a graph its source */
	g->work += work_of(f) + 1;
}

/*
 * The view of trace I (at absolute path DIR) in group G, made with the
 * trace's metadata and index when it is not there yet; NULL, with why in
 * WHY, when it cannot be made.
 */
static const char *view_of(struct group *g, const char *const *traces, size_t i, const char *dir,
                           char *why, size_t len)
{
	char view[PATH_MAX], index[PATH_MAX];
	struct stat st;

	for (guint v = 0; v < g->trace_of->len; v++)
		if (g_array_index(g->trace_of, size_t, v) == i)
			return g_ptr_array_index(g->views, v);
	if (ct_trace_view_create("group", view, sizeof(view), why, len) < 0)
		return NULL;
	g_ptr_array_add(g->views, g_strdup(view));
	g_ptr_array_add(g->shown, (gpointer)traces[i]);
	g_array_append_val(g->trace_of, i);
	if (ct_trace_view_link(dir, view, "metadata") < 0 ||
	    (ct_trace_view_join(index, dir, "index") == 0 && stat(index, &st) == 0 &&
	     ct_trace_view_link(dir, view, "index") < 0)) {
		snprintf(why, len, "cannot make a view of a trace: %s", strerror(errno));
		return NULL;
	}
	return g_ptr_array_index(g->views, g->views->len - 1);
}

/* Puts each file of FILES in its group (chosen), in a view of its trace. 0, or -1. */
static int fill(struct ct_stream_groups *groups, const char *const *traces, size_t count,
                GPtrArray *files, char *why, size_t len)
{
	char **absolute = g_new0(char *, count);
	int ret = 0;

	for (size_t i = 0; i < count; i++)
		absolute[i] = realpath(traces[i], NULL);
	for (guint n = 0; ret == 0 && n < files->len; n++) {
		const struct stream_file *f = g_ptr_array_index(files, n);
		struct group *g = chosen(groups, f);
		const char *view;

		if (!absolute[f->trace]) {
			snprintf(why, len, "cannot open a trace: %s", strerror(errno));
			ret = -1;
			break;
		}
		view = view_of(g, traces, f->trace, absolute[f->trace], why, len);
		if (!view || ct_trace_view_link(absolute[f->trace], view, f->name) < 0) {
			if (view)
				snprintf(why, len, "cannot make a view of a trace: %s",
				         strerror(errno));
			ret = -1;
		}
		place(groups, g, f);
	}
	for (size_t i = 0; i < count; i++)
		free(absolute[i]);
	g_free(absolute);
	return ret;
}

struct ct_stream_groups *ct_stream_groups_create(const char *const *traces, size_t count,
                                                 size_t wanted, char *why, size_t len)
{
	struct ct_stream_groups *groups;
	GPtrArray *files;

	if (wanted == 1 || !(files = stream_files(traces, count)))
		return whole(traces, count);
	if (wanted == CT_STREAM_GROUPS_AUTO)
		wanted = groups_for(files);
	if (wanted <= 1 || files->len <= 1) {
		g_ptr_array_free(files, TRUE);
		return whole(traces, count);
	}
	groups = g_new0(struct ct_stream_groups, 1);
	groups->count = MIN(MIN(wanted, files->len), GROUPS_MAX);
	for (size_t i = 0; i < groups->count; i++)
		group_init(&groups->groups[i], true);
	weigh(files, traces);
	if (fill(groups, traces, count, files, why, len) < 0) {
		ct_stream_groups_destroy(groups);
		groups = NULL;
	}
	g_ptr_array_free(files, TRUE);
	return groups;
}

size_t ct_stream_groups_count(const struct ct_stream_groups *groups)
{
	return groups->count;
}

const char *const *ct_stream_groups_views(const struct ct_stream_groups *groups, size_t g)
{
	return (const char *const *)groups->groups[g].views->pdata;
}

size_t ct_stream_groups_view_count(const struct ct_stream_groups *groups, size_t g)
{
	return groups->groups[g].views->len;
}

const char *const *ct_stream_groups_shown(const struct ct_stream_groups *groups, size_t g)
{
	return (const char *const *)groups->groups[g].shown->pdata;
}

size_t ct_stream_groups_trace_of(const struct ct_stream_groups *groups, size_t g, size_t v)
{
	return g_array_index(groups->groups[g].trace_of, size_t, v);
}
