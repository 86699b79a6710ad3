/* SPDX-License-Identifier: MIT */
/*
 * export-ctf.c - the GPU-time trace as CTF (see export-ctf.h): the graph's
 * tail is the "gpu-time" filter, then sink.ctf.fs writing one trace into
 * the output directory.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "discovery.h"
#include "export-ctf.h"
#include "trace-graph.h"

struct tail {
	const char *output;
	struct ct_gpu_time_stats *stats;
};

/* The "gpu-time" filter and sink.ctf.fs, connected; the filter's input port in *INPUT. */
static int add_tail(bt_graph *graph, void *data, const bt_port_input **input, char *error,
                    size_t len)
{
	const struct tail *t = data;
	bt_component_class_filter *filter_cls = ct_gpu_time_filter_class();
	const bt_plugin *ctf = NULL;
	const bt_component_class_sink *sink_cls;
	const bt_component_filter *filter;
	const bt_component_sink *sink;
	bt_value *params = bt_value_map_create();
	int status = -1;

	snprintf(error, len, "out of memory");
	if (!filter_cls || !params)
		goto end;
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) !=
	        BT_PLUGIN_FIND_STATUS_OK ||
	    !(sink_cls = bt_plugin_borrow_sink_component_class_by_name_const(ctf, "fs"))) {
		snprintf(error, len,
		         "babeltrace2's ctf plugin has no sink.ctf.fs (Debian: babeltrace2)");
		goto end;
	}
	if (bt_value_map_insert_string_entry(params, "path", t->output) !=
	        BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
	    bt_value_map_insert_bool_entry(params, "assume-single-trace", BT_TRUE) !=
	        BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
	    bt_value_map_insert_bool_entry(params, "quiet", BT_TRUE) !=
	        BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK)
		goto end;
	if (bt_graph_add_filter_component_with_initialize_method_data(
	        graph, filter_cls, "gpu-time", NULL, t->stats, BT_LOGGING_LEVEL_NONE, &filter) !=
	        BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_add_sink_component(graph, sink_cls, "ctf-writer", params,
	                                BT_LOGGING_LEVEL_NONE,
	                                &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_connect_ports(graph,
	                           bt_component_filter_borrow_output_port_by_index_const(filter, 0),
	                           bt_component_sink_borrow_input_port_by_index_const(sink, 0),
	                           NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		snprintf(error, len, "cannot set up the CTF writer for '%s'", t->output);
		goto end;
	}
	*input = bt_component_filter_borrow_input_port_by_index_const(filter, 0);
	status = 0;
end:
	bt_value_put_ref(params);
	bt_plugin_put_ref(ctf);
	bt_component_class_filter_put_ref(filter_cls);
	return status;
}

/*
 * OUTPUT does not exist (*CREATED: the export makes it), or is an empty
 * directory: 0; else -1 with why.
 */
static int output_usable(const char *output, bool *created, char *error, size_t len)
{
	DIR *dir = opendir(output);
	struct dirent *d;

	*created = !dir && errno == ENOENT;
	if (!dir) {
		if (*created)
			return 0;
		snprintf(error, len, "cannot write into '%s': %s", output, strerror(errno));
		return -1;
	}
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			closedir(dir);
			snprintf(error, len, "'%s' is not empty: name a new directory", output);
			return -1;
		}
	closedir(dir);
	return 0;
}

/*
 * An export that failed or wrote nothing takes back the directory it made,
 * with what sink.ctf.fs wrote in it (files only: it makes no directory
 * there with assume-single-trace), so that no half trace is left.
 */
static void remove_output(const char *output)
{
	DIR *dir = opendir(output);
	struct dirent *d;

	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			unlinkat(dirfd(dir), d->d_name, 0);
	closedir(dir);
	rmdir(output);
}

enum ct_export_status ct_export_ctf(const char *const *paths, size_t count, const char *output,
                                    struct ct_gpu_time_stats *stats, char *error, size_t len)
{
	GPtrArray *traces = g_ptr_array_new_with_free_func(g_free);
	struct tail tail = { output, stats };
	const struct ct_trace_graph_tail graph_tail = { add_tail, &tail };
	struct ct_trace_graph *graph = NULL;
	enum ct_trace_graph_status gs;
	enum ct_export_status status = CT_EXPORT_INPUT_ERROR;
	bool created = false;

	*stats = (struct ct_gpu_time_stats){ 0 };
	if (ct_discover_traces(paths, count, traces, error, len) != CT_DISCOVERY_OK)
		goto end;
	if (output_usable(output, &created, error, len) < 0) {
		status = CT_EXPORT_ERROR;
		goto end;
	}
	gs = ct_trace_graph_create_with_tail((const char *const *)traces->pdata, traces->len,
	                                     &graph_tail, &graph, error, len);
	if (gs == CT_TRACE_GRAPH_OK)
		gs = ct_trace_graph_run(graph, error, len);
	if (gs != CT_TRACE_GRAPH_OK) {
		status = gs == CT_TRACE_GRAPH_INPUT_ERROR || stats->unknown_version
		             ? CT_EXPORT_INPUT_ERROR
		             : CT_EXPORT_ERROR;
		goto end;
	}
	if (!stats->operations) {
		snprintf(error, len,
		         "the traces hold no GPU operation (gpu_kernel, gpu_memcpy, gpu_memset): "
		         "nothing to export (was GPU activity recorded? see cudatrace-record(1), "
		         "--activity)");
		goto end;
	}
	status = CT_EXPORT_OK;
end:
	/* the sink writes its last packets and the metadata as the graph goes */
	ct_trace_graph_destroy(graph);
	if (status != CT_EXPORT_OK && created)
		remove_output(output);
	g_ptr_array_free(traces, TRUE);
	return status;
}
