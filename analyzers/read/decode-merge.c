/* SPDX-License-Identifier: MIT */
/*
 * decode-merge.c - the decoding threads of a pass's groups of stream
 * files, their records merged in time order (see decode-merge.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include <glib.h>

#include "class-cache.h"
#include "decode-merge.h"
#include "common/log.h"
#include "contract/assert.h"
#include "stream-groups.h"

/* A group's graph and decoding thread, and the batch the merge reads of it. */
struct lane {
	size_t group;                 /* its group (stream-groups.h) */
	struct ct_class_cache *cache; /* owned: the classes of this graph's traces */
	struct ct_decode_thread *dt;  /* owned */
	struct ct_trace_graph *graph; /* owned */
	struct ct_batch *batch;       /* the decoding thread's, being read; NULL: none */
	size_t next;                  /* its next record */
	bool over;                    /* the run ended and was joined */
	enum ct_trace_graph_status status;
	char error[512];
};

struct ct_decode_merge {
	struct ct_stream_groups *groups; /* owned */
	struct lane *lanes;              /* owned */
	size_t count;
	struct lane *failed; /* the run that ended in an error, which ends the pass */
	/*
	 * The CT_RECORD_HELD record whose held events are being taken, NULL:
	 * none; its lane, which stays the earliest until they are all taken,
	 * and its next held event. One lane at a time.
	 */
	const struct ct_record *holder;
	struct lane *holder_lane;
	uint32_t held_next;
	struct ct_record whole; /* the held event taken last, made a record */
	size_t traces;          /* read, in whole or in part */
	GString *damage;        /* owned */
	uint64_t foreign_events;
};

/* Frees LANE's graph, then its thread and classes. */
static void lane_release(struct lane *lane)
{
	ct_trace_graph_destroy(lane->graph);
	ct_decode_thread_destroy(lane->dt);
	ct_class_cache_destroy(lane->cache);
	memset(lane, 0, sizeof(*lane));
}

void ct_decode_merge_destroy(struct ct_decode_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->count; i++)
		lane_release(&m->lanes[i]);
	g_free(m->lanes);
	/* after the graphs: their sources read the views */
	ct_stream_groups_destroy(m->groups);
	g_string_free(m->damage, TRUE);
	g_free(m);
}

/*
 * The lane of group G: its graph (on the group's views) feeding its
 * decoding thread. The graph's status; on an error LANE holds nothing.
 */
static enum ct_trace_graph_status lane_create(struct ct_decode_merge *m, size_t g, ct_ev_set types,
                                              struct lane *lane, char *error, size_t len)
{
	enum ct_trace_graph_status status;

	lane->group = g;
	lane->cache = ct_class_cache_create();
	lane->dt = ct_decode_thread_create(lane->cache, types);
	status = ct_trace_graph_create(
	    ct_stream_groups_views(m->groups, g), ct_stream_groups_shown(m->groups, g),
	    ct_stream_groups_view_count(m->groups, g), ct_decode_thread_consume, lane->dt,
	    &lane->graph, error, len);
	if (status != CT_TRACE_GRAPH_OK)
		lane_release(lane);
	return status;
}

/*
 * Adds what a lane's repaired copies leave out (DAMAGE, "; "-joined) to
 * the merge's, each part once: the metadata, cut or repaired, is in every
 * group's view of a trace, and says the same in each.
 */
static void note_damage(struct ct_decode_merge *m, const char *damage)
{
	gchar **parts = g_strsplit(damage, "; ", -1);

	for (gchar **part = parts; *part; part++) {
		gchar **seen = g_strsplit(m->damage->str, "; ", -1);
		bool again = g_strv_contains((const gchar *const *)seen, *part);

		g_strfreev(seen);
		if (**part && !again)
			g_string_append_printf(m->damage, "%s%s", m->damage->len ? "; " : "",
			                       *part);
	}
	g_strfreev(parts);
}

/* What the lanes read: the traces (in whole or in part), the damage of their copies. */
static void note_read(struct ct_decode_merge *m, size_t trace_count)
{
	gboolean *read = g_new0(gboolean, trace_count ? trace_count : 1);

	for (size_t i = 0; i < m->count; i++) {
		const struct lane *lane = &m->lanes[i];
		const char *damage = ct_trace_graph_damage(lane->graph);
		size_t g = lane->group;

		for (size_t v = 0; v < ct_stream_groups_view_count(m->groups, g); v++)
			if (ct_trace_graph_reads(lane->graph, v))
				read[ct_stream_groups_trace_of(m->groups, g, v)] = TRUE;
		note_damage(m, damage);
	}
	for (size_t t = 0; t < trace_count; t++)
		m->traces += read[t] ? 1 : 0;
	g_free(read);
}

/*
 * The lanes, one per group with a readable trace, each one's decoding
 * started once its graph is built, so that it decodes while the next
 * groups' graphs are built (babeltrace2 parses the metadata for each);
 * the status of the first that failed.
 */
static enum ct_trace_graph_status lanes_create(struct ct_decode_merge *m, ct_ev_set types,
                                               char *error, size_t len)
{
	size_t groups = ct_stream_groups_count(m->groups);
	bool said = false;

	m->lanes = g_new0(struct lane, groups);
	for (size_t g = 0; g < groups; g++) {
		char why[512];
		struct lane *lane = &m->lanes[m->count];
		enum ct_trace_graph_status status =
		    lane_create(m, g, types, lane, why, sizeof(why));

		if (status == CT_TRACE_GRAPH_OK) {
			m->count++;
			if (ct_decode_thread_start(lane->dt, lane->graph, error, len) < 0) {
				lane->over = true;
				return CT_TRACE_GRAPH_ERROR;
			}
			continue;
		}
		if (status != CT_TRACE_GRAPH_INPUT_ERROR) {
			snprintf(error, len, "%s", why);
			return status;
		}
		/* a group none of whose traces can be read is left out, the others read */
		if (!said)
			snprintf(error, len, "%s", why);
		said = true;
	}
	return m->count ? CT_TRACE_GRAPH_OK : CT_TRACE_GRAPH_INPUT_ERROR;
}

/* Stops the lanes' decoding threads started, and waits for them. */
static void lanes_join(struct ct_decode_merge *m)
{
	ct_decode_merge_stop(m);
	for (size_t i = 0; i < m->count; i++) {
		char why[512];

		if (m->lanes[i].over)
			continue;
		ct_decode_thread_join(m->lanes[i].dt, why, sizeof(why));
		m->lanes[i].over = true;
	}
}

enum ct_trace_graph_status ct_decode_merge_create(const char *const *traces, size_t count,
                                                  ct_ev_set types, struct ct_decode_merge **merge,
                                                  char *error, size_t len)
{
	struct ct_decode_merge *m = g_new0(struct ct_decode_merge, 1);
	enum ct_trace_graph_status status;
	char why[512];

	*merge = NULL;
	m->damage = g_string_new(NULL);
	m->groups =
	    ct_stream_groups_create(traces, count, ct_stream_groups_wanted(), why, sizeof(why));
	if (!m->groups) {
		/* the views cannot be made (TMPDIR): one graph reads the traces as they are */
		ct_log_warning("decoding the trace on one thread: %s", why);
		m->groups = ct_stream_groups_create(traces, count, 1, why, sizeof(why));
	}
	status = lanes_create(m, types, error, len);
	if (status != CT_TRACE_GRAPH_OK) {
		lanes_join(m);
		ct_decode_merge_destroy(m);
		return status;
	}
	/* what the builds found: the graphs' runs do not change it */
	note_read(m, count);
	*merge = m;
	return CT_TRACE_GRAPH_OK;
}

size_t ct_decode_merge_traces(const struct ct_decode_merge *m)
{
	return m->traces;
}

const char *ct_decode_merge_damage(const struct ct_decode_merge *m)
{
	return m->damage->str;
}

uint64_t ct_decode_merge_foreign_events(const struct ct_decode_merge *m)
{
	return m->foreign_events;
}

/*
 * Whether LANE has a record to take, its next batch taken when the one
 * read is done; a run that ended is joined, and if it ended in an error,
 * it ends the pass.
 */
static bool ready(struct ct_decode_merge *m, struct lane *lane)
{
	while (!lane->over && (!lane->batch || lane->next == lane->batch->count)) {
		if (lane->batch)
			ct_decode_thread_release(lane->dt, lane->batch);
		lane->batch = ct_decode_thread_next(lane->dt);
		lane->next = 0;
		if (lane->batch) {
			m->foreign_events += lane->batch->foreign_events;
			continue;
		}
		lane->over = true;
		lane->status = ct_decode_thread_join(lane->dt, lane->error, sizeof(lane->error));
		if (lane->status != CT_TRACE_GRAPH_OK && !m->failed)
			m->failed = lane;
	}
	return !lane->over;
}

/*
 * The holder's next held event as the record the decoding thread would
 * have made of it: an event of its own at the holder's place, of its
 * trace and origin (unchanged after the first).
 */
static struct ct_record *take_held(struct ct_decode_merge *m)
{
	const struct ct_record *holder = m->holder;
	const struct ct_held_event *h =
	    &m->holder_lane->batch->held[holder->held.first + m->held_next];
	struct ct_record *rec = &m->whole;

	rec->kind = CT_RECORD_EVENT;
	rec->decoded = true;
	rec->at_ns = holder->at_ns;
	rec->origin = holder->origin;
	if (m->held_next) {
		rec->origin.changed = false;
		rec->origin.hostname = rec->origin.procname = NULL;
	}
	/*
	 * What comes before the payload is cleared, and the payload is the
	 * held one: no event type reads past its own member of the union.
	 * Clearing all 280 bytes through memset was a third of this
	 * function's instructions, for each record a batch holds.
	 */
	memset(&rec->ev, 0, offsetof(struct ct_event, u));
	rec->ev.type = h->type;
	rec->ev.time_ns = h->time_ns;
	rec->ev.trace = holder->ev.trace;
	switch (h->type) {
	case CT_EV_GPU_MEMCPY_TIMES:
		rec->ev.u.gpu_memcpy_times = h->u.gpu_memcpy_times;
		break;
	case CT_EV_GPU_KERNEL_TIMES:
		rec->ev.u.gpu_kernel_times = h->u.gpu_kernel_times;
		break;
	case CT_EV_GPU_KERNEL_SHAPED:
		rec->ev.u.gpu_kernel_shaped = h->u.gpu_kernel_shaped;
		break;
	case CT_EV_GPU_MEMSET_TIMES:
		rec->ev.u.gpu_memset_times = h->u.gpu_memset_times;
		break;
	case CT_EV_REPEAT:
		rec->ev.u.repeat = h->u.repeat;
		break;
	case CT_EV_REPEAT_MOVED:
		rec->ev.u.repeat_moved = h->u.repeat_moved;
		break;
	default:
		CT_ASSERT(!"a held event of another type");
	}
	if (++m->held_next == holder->held.count)
		m->holder = NULL;
	return rec;
}

struct ct_record *ct_decode_merge_next(struct ct_decode_merge *m)
{
	struct ct_record *rec;
	struct lane *best = NULL;
	int64_t best_ns = 0;

	if (m->failed)
		return NULL;
	/*
	 * The holder's lane stays the earliest until its held events are all
	 * taken: they share its place in time, and the other lanes' next
	 * records, which were not before it, did not move.
	 */
	if (m->holder)
		return take_held(m);
	for (size_t i = 0; i < m->count; i++) {
		struct lane *lane = &m->lanes[i];
		int64_t at;

		if (!ready(m, lane)) {
			if (m->failed)
				return NULL;
			continue;
		}
		at = lane->batch->records[lane->next].at_ns;
		/* strictly earlier: a tie goes to the group that comes first */
		if (!best || at < best_ns) {
			best = lane;
			best_ns = at;
		}
	}
	if (!best)
		return NULL;
	rec = &best->batch->records[best->next++];
	rec->lane = (uint32_t)(best - m->lanes);
	if (rec->kind != CT_RECORD_HELD)
		return rec;
	m->holder = rec;
	m->holder_lane = best;
	m->held_next = 0;
	m->whole.lane = rec->lane;
	return take_held(m);
}

void ct_decode_merge_stop(struct ct_decode_merge *m)
{
	for (size_t i = 0; i < m->count; i++)
		ct_decode_thread_stop(m->lanes[i].dt);
}

enum ct_trace_graph_status ct_decode_merge_join(struct ct_decode_merge *m, char *error, size_t len)
{
	const struct lane *cause = m->failed;

	m->holder = NULL;
	for (size_t i = 0; i < m->count; i++) {
		struct lane *lane = &m->lanes[i];

		if (lane->batch && !lane->over)
			ct_decode_thread_release(lane->dt, lane->batch);
		lane->batch = NULL;
		if (lane->over)
			continue;
		lane->over = true;
		lane->status = ct_decode_thread_join(lane->dt, lane->error, sizeof(lane->error));
	}
	/* without a run that ended the pass, the first that did not end well */
	for (size_t i = 0; !cause && i < m->count; i++)
		if (m->lanes[i].status != CT_TRACE_GRAPH_OK)
			cause = &m->lanes[i];
	if (!cause)
		return CT_TRACE_GRAPH_OK;
	snprintf(error, len, "%s", cause->error);
	return cause->status;
}
