/* SPDX-License-Identifier: MIT */
/*
 * ctf-writer.c - the graph of a source of ours and sink.ctf.fs, run by
 * its owner (see ctf-writer.h).
 */
#include <stdbool.h>
#include <stdio.h>

#include <glib.h>

#include "ctf-writer.h"

struct ct_ctf_writer {
	bt_graph *graph;           /* owned */
	bt_self_component *source; /* borrowed from the graph */
	ct_ctf_writer_next_func next;
	void *data;
	char *dir;        /* owned */
	bool next_failed; /* NEXT returned an error */
	bool failed;      /* a run failed: the graph may not run again */
};

/* ------------------------------------------------------------ the source */

/* The iterator hands the writer's owner every call: its data is the writer. */
static bt_message_iterator_class_initialize_method_status
iter_initialize(bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
                bt_self_component_port_output *port)
{
	(void)config;
	(void)port;
	bt_self_message_iterator_set_data(
	    self, bt_self_component_get_data(bt_self_message_iterator_borrow_component(self)));
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_message_iterator_class_next_method_status iter_next(bt_self_message_iterator *self,
                                                              bt_message_array_const msgs,
                                                              uint64_t capacity, uint64_t *count)
{
	struct ct_ctf_writer *w = bt_self_message_iterator_get_data(self);
	bt_message_iterator_class_next_method_status status =
	    w->next(w->data, self, msgs, capacity, count);

	if (status < 0)
		w->next_failed = true;
	return status;
}

/* The source's initialize method data is its writer. */
static bt_component_class_initialize_method_status
source_initialize(bt_self_component_source *self, bt_self_component_source_configuration *config,
                  const bt_value *params, void *data)
{
	struct ct_ctf_writer *w = data;

	(void)config;
	(void)params;
	w->source = bt_self_component_source_as_self_component(self);
	bt_self_component_set_data(w->source, w);
	if (bt_self_component_source_add_output_port(self, "out", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

/* A new source component class; NULL: out of memory. */
static bt_component_class_source *source_class(void)
{
	bt_message_iterator_class *iter_cls = bt_message_iterator_class_create(iter_next);
	bt_component_class_source *cls = NULL;

	if (!iter_cls)
		return NULL;
	if (bt_message_iterator_class_set_initialize_method(iter_cls, iter_initialize) ==
	    BT_MESSAGE_ITERATOR_CLASS_SET_METHOD_STATUS_OK)
		cls = bt_component_class_source_create("cudatrace-out", iter_cls);
	bt_message_iterator_class_put_ref(iter_cls);
	if (cls && bt_component_class_source_set_initialize_method(cls, source_initialize) !=
	               BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK) {
		bt_component_class_source_put_ref(cls);
		cls = NULL;
	}
	return cls;
}

/* ------------------------------------------------------------ the graph */

/* sink.ctf.fs's parameters: one trace, its files right in DIR, nothing printed. */
static bt_value *sink_params(const char *dir)
{
	bt_value *params = bt_value_map_create();

	if (params && (bt_value_map_insert_string_entry(params, "path", dir) !=
	                   BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
	               bt_value_map_insert_bool_entry(params, "assume-single-trace", BT_TRUE) !=
	                   BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
	               bt_value_map_insert_bool_entry(params, "quiet", BT_TRUE) !=
	                   BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK)) {
		bt_value_put_ref(params);
		return NULL;
	}
	return params;
}

/* The source and sink.ctf.fs in W's graph, connected. 0, or -1 with why in ERROR. */
static int build(struct ct_ctf_writer *w, const char *dir, char *error, size_t len)
{
	bt_component_class_source *source_cls = source_class();
	bt_value *params = sink_params(dir);
	const bt_plugin *ctf = NULL;
	const bt_component_class_sink *sink_cls;
	const bt_component_source *source;
	const bt_component_sink *sink;
	int status = -1;

	snprintf(error, len, "out of memory");
	if (!source_cls || !params)
		goto end;
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) !=
	        BT_PLUGIN_FIND_STATUS_OK ||
	    !(sink_cls = bt_plugin_borrow_sink_component_class_by_name_const(ctf, "fs"))) {
		bt_current_thread_clear_error();
		snprintf(error, len,
		         "babeltrace2's ctf plugin has no sink.ctf.fs (Debian: babeltrace2)");
		goto end;
	}
	if (bt_graph_add_source_component_with_initialize_method_data(
	        w->graph, source_cls, "cudatrace-out", NULL, w, BT_LOGGING_LEVEL_NONE, &source) !=
	        BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_add_sink_component(w->graph, sink_cls, "ctf-writer", params,
	                                BT_LOGGING_LEVEL_NONE,
	                                &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_connect_ports(w->graph,
	                           bt_component_source_borrow_output_port_by_index_const(source, 0),
	                           bt_component_sink_borrow_input_port_by_index_const(sink, 0),
	                           NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		/* babeltrace2's own message names its internals, not what went wrong for us */
		bt_current_thread_clear_error();
		snprintf(error, len, "cannot set up the CTF writer for '%s'", dir);
		goto end;
	}
	status = 0;
end:
	bt_value_put_ref(params);
	/* the components hold what they need of the plugin */
	bt_plugin_put_ref(ctf);
	bt_component_class_source_put_ref(source_cls);
	return status;
}

struct ct_ctf_writer *ct_ctf_writer_create(const char *dir, ct_ctf_writer_next_func next,
                                           void *data, char *error, size_t len)
{
	struct ct_ctf_writer *w = g_new0(struct ct_ctf_writer, 1);

	w->next = next;
	w->data = data;
	w->dir = g_strdup(dir);
	w->graph = bt_graph_create(0);
	if (!w->graph) {
		snprintf(error, len, "out of memory");
		ct_ctf_writer_destroy(w);
		return NULL;
	}
	if (build(w, dir, error, len) < 0) {
		ct_ctf_writer_destroy(w);
		return NULL;
	}
	return w;
}

bt_self_component *ct_ctf_writer_component(struct ct_ctf_writer *w)
{
	return w->source;
}

int ct_ctf_writer_run(struct ct_ctf_writer *w, char *error, size_t len)
{
	if (w->failed) {
		snprintf(error, len, "the CTF writer failed before");
		return -1;
	}
	/* one sink: AGAIN comes back at once, when NEXT has nothing for now */
	switch (bt_graph_run(w->graph)) {
	case BT_GRAPH_RUN_STATUS_OK:
	case BT_GRAPH_RUN_STATUS_AGAIN:
		return 0;
	case BT_GRAPH_RUN_STATUS_MEMORY_ERROR:
		bt_current_thread_clear_error();
		snprintf(error, len, "out of memory");
		break;
	default:
		/* babeltrace2's own message names its internals, not what went wrong for us */
		bt_current_thread_clear_error();
		if (w->next_failed)
			snprintf(error, len, "out of memory");
		else
			snprintf(error, len,
			         "cannot write the GPU-time trace into '%s' (babeltrace2's "
			         "sink.ctf.fs failed: a full disk, a quota, a file size limit?)",
			         w->dir);
		break;
	}
	w->failed = true;
	return -1;
}

void ct_ctf_writer_destroy(struct ct_ctf_writer *w)
{
	if (!w)
		return;
	/*
	 * sink.ctf.fs (babeltrace2 2.0) frees a stream's serializer twice when
	 * it is finalized after a write failed (a file that cannot grow), and
	 * the process aborts. The graph of a failed run is left as it is: the
	 * caller takes the files back (their directory removed), the memory
	 * is the process's until it ends, which it does with the failure.
	 */
	if (!w->failed)
		bt_graph_put_ref(w->graph);
	g_free(w->dir);
	g_free(w);
}
