/* SPDX-License-Identifier: MIT */
/*
 * trace-graph.c - the babeltrace2 graph of a pass, its sources repaired or
 * skipped (see trace-graph.h).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "live.h"
#include "common/log.h"
#include "trace-check.h"
#include "trace-graph.h"
#include "trace-repair.h"
#include "trace-view.h"

struct ct_trace_graph {
	bt_graph *graph;                  /* owned */
	const bt_plugin *ctf;             /* owned */
	const bt_plugin *utils;           /* owned */
	const bt_component_filter *muxer; /* borrowed from the graph; NULL: one stream, no muxer */
	const bt_port_input
	    *sink_input;           /* where the muxer's messages go; borrowed from the graph */
	GPtrArray *sources;        /* const bt_component_source *, borrowed from the graph */
	const char *const *traces; /* borrowed */
	const char *const *shown;  /* borrowed: the names messages give the traces */
	size_t trace_count;
	/* What each trace is read from: itself, its repaired copy, NULL (skipped); borrowed. */
	GPtrArray *read_from;
	GPtrArray *repairs;      /* owned: repaired copies' paths, removed with the graph */
	bool live;               /* the first trace is a relay daemon's URL */
	uint64_t ended_in_error; /* ports whose source ended in data it could not decode */
	GString *damage;         /* owned: what the repaired copies leave out, "" if nothing */
};

/* The root cause babeltrace2 recorded for the current thread's error; clears it. */
static void take_error(char *buf, size_t len)
{
	const bt_error *error = bt_current_thread_take_error();
	uint64_t n;

	snprintf(buf, len, "unknown error");
	if (!error)
		return;
	n = bt_error_get_cause_count(error);
	if (n > 0) {
		/* cause 0 is the first appended: the deepest, most specific one */
		const char *msg =
		    bt_error_cause_get_message(bt_error_borrow_cause_by_index(error, 0));
		size_t m;

		snprintf(buf, len, "%s", msg ? msg : "unknown error");
		/* one line only */
		m = strcspn(buf, "\n");
		buf[m] = '\0';
	}
	bt_error_release(error);
}

/* ------------------------------------------------------------ the guards */

/*
 * A guard: a filter between a source's port and the muxer that passes on
 * what the port gives. src.ctf.fs of babeltrace2 2.0 gives the messages
 * decoded before data it cannot decode with its error left on the thread
 * and the status OK; the muxer then reads another source, which aborts
 * ("API function called while current thread has an error"). The guard
 * takes that error off the thread and puts it back at its next call,
 * before reading its port again: the source then fails as it would alone.
 * A source that ends there with its error still on the thread ends its
 * port, the error counted (the graph's ended_in_error) and released.
 */
struct guard {
	bt_message_iterator *upstream; /* owned */
	const bt_error *error;         /* owned: the error its port left, NULL if none */
	uint64_t *ended_in_error;      /* borrowed: the graph's */
};

/* DATA: the graph's ended_in_error, kept as the input port's data. */
static bt_component_class_initialize_method_status
guard_init(bt_self_component_filter *self, bt_self_component_filter_configuration *config,
           const bt_value *params, void *data)
{
	bt_self_component_port_input *in;

	(void)config;
	(void)params;
	if (bt_self_component_filter_add_input_port(self, "in", data, &in) !=
	        BT_SELF_COMPONENT_ADD_PORT_STATUS_OK ||
	    bt_self_component_filter_add_output_port(self, "out", NULL, NULL) !=
	        BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	bt_self_component_set_data(bt_self_component_filter_as_self_component(self), in);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_message_iterator_class_initialize_method_status
guard_iterator_init(bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
                    bt_self_component_port_output *port)
{
	bt_self_component_port_input *in =
	    bt_self_component_get_data(bt_self_message_iterator_borrow_component(self));
	struct guard *g = g_new0(struct guard, 1);

	(void)config;
	(void)port;
	g->ended_in_error = bt_self_component_port_get_data(
	    bt_self_component_port_input_as_self_component_port(in));
	if (bt_message_iterator_create_from_message_iterator(self, in, &g->upstream) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK) {
		g_free(g);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_message_iterator_set_data(self, g);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void guard_iterator_finalize(bt_self_message_iterator *self)
{
	struct guard *g = bt_self_message_iterator_get_data(self);

	if (!g)
		return;
	if (g->error)
		bt_error_release(g->error);
	bt_message_iterator_put_ref(g->upstream);
	g_free(g);
}

static bt_message_iterator_class_next_method_status guard_next(bt_self_message_iterator *self,
                                                               bt_message_array_const msgs,
                                                               uint64_t capacity, uint64_t *count)
{
	struct guard *g = bt_self_message_iterator_get_data(self);
	bt_message_array_const got;
	const bt_error *error;
	uint64_t n = 0;

	if (g->error) {
		bt_current_thread_move_error(g->error);
		g->error = NULL;
	}
	switch (bt_message_iterator_next(g->upstream, &got, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		error = bt_current_thread_take_error();
		if (error) {
			bt_error_release(error);
			(*g->ended_in_error)++;
		}
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	/* every iterator of a graph is asked for as many messages at most */
	if (n > capacity) {
		for (uint64_t i = 0; i < n; i++)
			bt_message_put_ref(got[i]);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < n; i++)
		msgs[i] = got[i];
	*count = n;
	g->error = bt_current_thread_take_error();
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/* The guards' component class; NULL when out of memory. Its reference is the caller's. */
static bt_component_class_filter *guard_class(void)
{
	bt_message_iterator_class *it = bt_message_iterator_class_create(guard_next);
	bt_component_class_filter *cls = NULL;

	if (it &&
	    bt_message_iterator_class_set_initialize_method(it, guard_iterator_init) ==
	        BT_MESSAGE_ITERATOR_CLASS_SET_METHOD_STATUS_OK &&
	    bt_message_iterator_class_set_finalize_method(it, guard_iterator_finalize) ==
	        BT_MESSAGE_ITERATOR_CLASS_SET_METHOD_STATUS_OK)
		cls = bt_component_class_filter_create("cudatrace-guard", it);
	if (cls && bt_component_class_filter_set_initialize_method(cls, guard_init) !=
	               BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK) {
		bt_component_class_filter_put_ref(cls);
		cls = NULL;
	}
	bt_message_iterator_class_put_ref(it);
	return cls;
}

/* Removes a repaired copy and frees its path (the repairs' free function). */
static void repair_free(gpointer copy)
{
	ct_trace_view_remove(copy);
	g_free(copy);
}

void ct_trace_graph_destroy(struct ct_trace_graph *g)
{
	if (!g)
		return;
	/* the sources read the repaired copies: they go first */
	bt_graph_put_ref(g->graph);
	bt_plugin_put_ref(g->ctf);
	bt_plugin_put_ref(g->utils);
	g_ptr_array_free(g->sources, TRUE);
	g_ptr_array_free(g->read_from, TRUE);
	g_ptr_array_free(g->repairs, TRUE);
	g_string_free(g->damage, TRUE);
	g_free(g);
}

static enum ct_trace_graph_status find_plugins(struct ct_trace_graph *g, char *error, size_t len)
{
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &g->ctf) !=
	        BT_PLUGIN_FIND_STATUS_OK ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &g->utils) !=
	        BT_PLUGIN_FIND_STATUS_OK) {
		bt_current_thread_clear_error();
		snprintf(error, len,
		         "babeltrace2's ctf and utils plugins are missing (Debian: babeltrace2)");
		return CT_TRACE_GRAPH_ERROR;
	}
	return CT_TRACE_GRAPH_OK;
}

/* A source for trace PATH, NULL (with the reason in WHY) if babeltrace2 cannot read it. */
static const bt_component_source *add_source(struct ct_trace_graph *g, const char *path,
                                             size_t index, char *why, size_t len)
{
	const bt_component_class_source *cls =
	    bt_plugin_borrow_source_component_class_by_name_const(g->ctf,
	                                                          ct_live_source_class(path));
	const bt_component_source *comp = NULL;
	bt_value *params = bt_value_map_create();
	bt_value *inputs = NULL;
	char name[32];

	snprintf(why, len, "out of memory");
	if (!cls || !params)
		goto end;
	if (ct_live_source_params(path, params) < 0)
		goto end;
	if (bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) !=
	        BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
	    bt_value_array_append_string_element(inputs, path) !=
	        BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK)
		goto end;
	snprintf(name, sizeof(name), "source-%zu", index);
	if (bt_graph_add_source_component(g->graph, cls, name, params, BT_LOGGING_LEVEL_NONE,
	                                  &comp) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		take_error(why, len);
		comp = NULL;
	}
end:
	bt_value_put_ref(params);
	return comp;
}

/* Trace I is not read, for WHY (the first reason is kept in FIRST_ERROR). */
static void skip(struct ct_trace_graph *g, size_t i, const char *why, char *first_error, size_t len)
{
	char shown[CT_SHOWN_PATH_MAX];

	ct_shown_path(g->shown[i], shown, sizeof(shown));
	if (!first_error[0])
		snprintf(first_error, len, "'%s': %s", shown, why);
	/* each group's graph of the trace finds the same (stream-groups.h): said once */
	ct_log_once(CT_LOG_WARNING, "skipping '%s': %s", shown, why);
	g_ptr_array_index(g->read_from, i) = NULL;
}

/*
 * Checks trace I before babeltrace2 sees it (trace-check.h): it is read as
 * it is, from a repaired copy, or not at all (a warning, and the first
 * such reason in FIRST_ERROR).
 */
static void check_trace(struct ct_trace_graph *g, size_t i, char *first_error, size_t len)
{
	const char *trace = g->traces[i];
	char copy[PATH_MAX], why[512], shown[CT_SHOWN_PATH_MAX];
	struct ct_trace_check check;

	if (ct_live_is_url(trace))
		return;
	ct_shown_path(g->shown[i], shown, sizeof(shown));
	ct_trace_check(trace, shown, &check);
	if (check.status == CT_TRACE_CHECK_REPAIR &&
	    ct_trace_repair(trace, &check, copy, sizeof(copy), check.why, sizeof(check.why)) == 0) {
		g_ptr_array_add(g->repairs, g_strdup(copy));
		g_ptr_array_index(g->read_from, i) =
		    g_ptr_array_index(g->repairs, g->repairs->len - 1);
		if (check.damage->len)
			g_string_append_printf(g->damage, "%s%s", g->damage->len ? "; " : "",
			                       check.damage->str);
		if (check.warnings->len)
			ct_log_once(CT_LOG_WARNING, "%s", check.warnings->str);
	} else if (check.status != CT_TRACE_CHECK_OK) {
		snprintf(why, sizeof(why), "%s", check.why);
		skip(g, i, why, first_error, len);
	}
	ct_trace_check_release(&check);
}

/* Adds a source per trace still read; the index of the first that fails, or SIZE_MAX. */
static size_t add_sources(struct ct_trace_graph *g, char *why, size_t len)
{
	g_ptr_array_set_size(g->sources, 0);
	for (size_t i = 0; i < g->trace_count; i++) {
		const char *from = g_ptr_array_index(g->read_from, i);
		const bt_component_source *src;

		if (!from)
			continue;
		src = add_source(g, from, i, why, len);
		if (!src)
			return i;
		g_ptr_array_add(g->sources, (gpointer)src);
	}
	return SIZE_MAX;
}

/*
 * Whether the streams need merging: more than one output port, or a live
 * source (whose ports may come later). A single stream needs no muxer,
 * which would only pass its messages on, at a cost per message.
 */
static bool needs_muxer(const struct ct_trace_graph *g)
{
	uint64_t ports = 0;

	if (g->live)
		return true;
	for (guint s = 0; s < g->sources->len; s++)
		ports +=
		    bt_component_source_get_output_port_count(g_ptr_array_index(g->sources, s));
	return ports != 1;
}

/* The simple sink, whose input port is G's sink_input. 0, or -1 with why in ERROR. */
static int add_sink(struct ct_trace_graph *g, bt_graph_simple_sink_component_consume_func consume,
                    void *data, char *error, size_t len)
{
	const bt_component_sink *comp;

	if (bt_graph_add_simple_sink_component(g->graph, "cudatrace", NULL, consume, NULL, data,
	                                       &comp) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		take_error(error, len);
		return -1;
	}
	g->sink_input = bt_component_sink_borrow_input_port_by_index_const(comp, 0);
	return 0;
}

/*
 * A graph with a source per readable trace. Each trace is checked first,
 * and read as it is, from a repaired copy, or not at all. A source that
 * babeltrace2 still refuses leaves the graph unusable (it marks it
 * faulty), so the graph is made again without it.
 */
static enum ct_trace_graph_status build(struct ct_trace_graph *g,
                                        bt_graph_simple_sink_component_consume_func consume,
                                        void *data, char *error, size_t len)
{
	const bt_component_class_filter *muxer_cls;
	char first_error[640] = "";
	enum ct_trace_graph_status status = find_plugins(g, error, len);
	size_t failed = 0;

	if (status != CT_TRACE_GRAPH_OK)
		return status;
	muxer_cls = bt_plugin_borrow_filter_component_class_by_name_const(g->utils, "muxer");
	if (!muxer_cls) {
		snprintf(error, len, "out of memory");
		return CT_TRACE_GRAPH_MEMORY_ERROR;
	}
	for (size_t i = 0; i < g->trace_count; i++)
		check_trace(g, i, first_error, sizeof(first_error));
	while (failed != SIZE_MAX) {
		char why[512];

		g->graph = bt_graph_create(0);
		if (!g->graph) {
			snprintf(error, len, "out of memory");
			return CT_TRACE_GRAPH_MEMORY_ERROR;
		}
		failed = add_sources(g, why, sizeof(why));
		if (failed == SIZE_MAX)
			break;
		bt_graph_put_ref(g->graph);
		g->graph = NULL;
		skip(
		    g, failed,
		    ct_live_is_url(g->traces[failed])
		        ? "cannot read from the relay daemon"
		        : "its metadata or its packets are not valid CTF (declarations that do not "
		          "parse, or packet headers that do not match them)",
		    first_error, sizeof(first_error));
	}
	if (!g->sources->len) {
		snprintf(error, len, "not a readable trace: %s", first_error);
		return CT_TRACE_GRAPH_INPUT_ERROR;
	}
	if (needs_muxer(g) &&
	    bt_graph_add_filter_component(g->graph, muxer_cls, "muxer", NULL, BT_LOGGING_LEVEL_NONE,
	                                  &g->muxer) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		take_error(first_error, sizeof(first_error));
		snprintf(error, len, "cannot build the trace reader: %s", first_error);
		return CT_TRACE_GRAPH_ERROR;
	}
	if (add_sink(g, consume, data, first_error, sizeof(first_error)) < 0) {
		snprintf(error, len, "cannot build the trace reader: %s", first_error);
		return CT_TRACE_GRAPH_ERROR;
	}
	return CT_TRACE_GRAPH_OK;
}

/*
 * Every source port through a guard of its own to a fresh muxer input (the
 * muxer adds one per connection), muxer to the sink; without a muxer, the
 * one port to the sink.
 */
static enum ct_trace_graph_status connect(struct ct_trace_graph *g, char *error, size_t len)
{
	bt_component_class_filter *guard_cls = NULL;
	uint64_t guards = 0;
	char why[512];

	if (!g->muxer) {
		if (bt_graph_connect_ports(g->graph,
		                           bt_component_source_borrow_output_port_by_index_const(
		                               g_ptr_array_index(g->sources, 0), 0),
		                           g->sink_input, NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
			goto error;
		return CT_TRACE_GRAPH_OK;
	}
	guard_cls = guard_class();
	if (!guard_cls) {
		snprintf(error, len, "out of memory");
		return CT_TRACE_GRAPH_MEMORY_ERROR;
	}
	for (guint s = 0; s < g->sources->len; s++) {
		const bt_component_source *source = g_ptr_array_index(g->sources, s);
		uint64_t ports = bt_component_source_get_output_port_count(source);

		for (uint64_t p = 0; p < ports; p++) {
			const bt_port_output *out =
			    bt_component_source_borrow_output_port_by_index_const(source, p);
			uint64_t inputs = bt_component_filter_get_input_port_count(g->muxer);
			const bt_port_input *in =
			    bt_component_filter_borrow_input_port_by_index_const(g->muxer,
			                                                         inputs - 1);
			const bt_component_filter *guard;
			char name[32];

			snprintf(name, sizeof(name), "guard-%" PRIu64, guards++);
			if (bt_graph_add_filter_component_with_initialize_method_data(
			        g->graph, guard_cls, name, NULL, &g->ended_in_error,
			        BT_LOGGING_LEVEL_NONE,
			        &guard) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
			    bt_graph_connect_ports(
			        g->graph, out,
			        bt_component_filter_borrow_input_port_by_index_const(guard, 0),
			        NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK ||
			    bt_graph_connect_ports(
			        g->graph,
			        bt_component_filter_borrow_output_port_by_index_const(guard, 0), in,
			        NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
				goto error;
		}
	}
	bt_component_class_filter_put_ref(guard_cls);
	guard_cls = NULL;
	if (bt_graph_connect_ports(
	        g->graph, bt_component_filter_borrow_output_port_by_index_const(g->muxer, 0),
	        g->sink_input, NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		goto error;
	return CT_TRACE_GRAPH_OK;
error:
	bt_component_class_filter_put_ref(guard_cls);
	take_error(why, sizeof(why));
	snprintf(error, len, "cannot connect the trace reader: %s", why);
	return CT_TRACE_GRAPH_ERROR;
}

enum ct_trace_graph_status
ct_trace_graph_create(const char *const *traces, const char *const *shown, size_t count,
                      bt_graph_simple_sink_component_consume_func consume, void *data,
                      struct ct_trace_graph **graph, char *error, size_t len)
{
	struct ct_trace_graph *g = g_new0(struct ct_trace_graph, 1);
	enum ct_trace_graph_status status;

	g->traces = traces;
	g->shown = shown ? shown : traces;
	g->trace_count = count;
	g->live = count && ct_live_is_url(traces[0]);
	g->sources = g_ptr_array_new();
	g->read_from = g_ptr_array_new();
	g->repairs = g_ptr_array_new_with_free_func(repair_free);
	g->damage = g_string_new(NULL);
	for (size_t i = 0; i < count; i++)
		g_ptr_array_add(g->read_from, (gpointer)traces[i]);
	status = build(g, consume, data, error, len);
	if (status == CT_TRACE_GRAPH_OK)
		status = connect(g, error, len);
	if (status != CT_TRACE_GRAPH_OK) {
		ct_trace_graph_destroy(g);
		g = NULL;
	}
	*graph = g;
	return status;
}

enum ct_trace_graph_status ct_trace_graph_run(struct ct_trace_graph *g, char *error, size_t len)
{
	bt_graph_run_status status;

	do {
		status = bt_graph_run(g->graph);
		/* lttng-live: AGAIN means no new data yet; wait rather than spin */
		if (status == BT_GRAPH_RUN_STATUS_AGAIN && g->live)
			ct_live_wait();
	} while (status == BT_GRAPH_RUN_STATUS_AGAIN);
	switch (status) {
	case BT_GRAPH_RUN_STATUS_OK:
		/*
		 * src.ctf.fs ends a repaired copy at its cut with an error
		 * recorded and the run still OK: nothing more comes of it, and
		 * no API function may be called while it is there.
		 */
		bt_current_thread_clear_error();
		return CT_TRACE_GRAPH_OK;
	case BT_GRAPH_RUN_STATUS_MEMORY_ERROR:
		bt_current_thread_clear_error();
		snprintf(error, len, "out of memory");
		return CT_TRACE_GRAPH_MEMORY_ERROR;
	default:
		take_error(error, len);
		return CT_TRACE_GRAPH_ERROR;
	}
}

size_t ct_trace_graph_source_count(const struct ct_trace_graph *g)
{
	return g->sources->len;
}

bool ct_trace_graph_reads(const struct ct_trace_graph *g, size_t i)
{
	return g_ptr_array_index(g->read_from, i) != NULL;
}

bool ct_trace_graph_ended_in_error(const struct ct_trace_graph *g)
{
	return g->ended_in_error > 0;
}

const char *ct_trace_graph_damage(const struct ct_trace_graph *g)
{
	return g->damage->str;
}
