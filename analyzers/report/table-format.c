/* SPDX-License-Identifier: MIT */
/*
 * table-format.c - values of the report for people (see table-format.h).
 */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "table-format.h"
#include "writer.h"

/* Lists and sections the default detail leaves to --details. */
static const char *const details_only[] = {
	"environment",   "timeline", "peak_allocations", "leaks",    "reclaimed",
	"fragmentation", "kinds",    "by_direction",     "findings", "paths",
};

static bool details_only_key(const char *key)
{
	for (size_t i = 0; key && i < sizeof(details_only) / sizeof(details_only[0]); i++)
		if (!strcmp(key, details_only[i]))
			return true;
	return false;
}

bool ct_table_shown(const struct ct_node *node, bool details)
{
	/* a call stack is for programs (JSON, CSV): people read its site */
	if (node->detail)
		return false;
	return details || !details_only_key(node->key);
}

/*
 * The main columns of the wide lists: who, where, how much; the rest is in
 * --details. A list is known by its key and a key its elements have
 * (memory.devices and gpu.devices are both "devices").
 */
static const struct {
	const char *key;
	const char *marker;
	const char *columns[CT_TABLE_MAX_COLUMNS + 1];
} main_columns[] = {
	{ "hotspots",
	  "cost_ns",
	  { "site", "device", "tid", "direction", "host_memory", "sync", "size_class", "count",
	    "bytes", "cost_ns", "cost_share", NULL } },
	{ "failures",
	  "requested_bytes",
	  { "time_ns", "pid", "device", "site", "requested_bytes", "verdict", "free_bytes",
	    "largest_free_bytes", "total_bytes", NULL } },
	{ "devices",
	  "peak_bytes",
	  { "pid", "process", "device", "peak_bytes", "peak_time_ns", "live_at_end_bytes",
	    "allocations", "frees", "failures", NULL } },
	{ "devices",
	  "busy_ns",
	  { "pid", "process", "device", "gpu_records", "span_ns", "busy_ns", "idle_ns",
	    "utilization", "idle_gap_count", NULL } },
	{ "api",
	  "calls",
	  { "name", "calls", "total_ns", "mean_ns", "max_ns", "time_share", "errors", NULL } },
	{ "kernels",
	  "launches",
	  { "name", "launches", "count", "total_ns", "mean_ns", "max_ns", "time_share", NULL } },
	{ "growing_ranges",
	  "range",
	  { "pid", "process", "range", "repetitions", "growing_repetitions",
	    "growth_per_repetition_bytes", "held_at_end_bytes", NULL } },
	{ "growing_sites",
	  "steps",
	  { "pid", "process", "device", "site", "allocations", "freed", "steps",
	    "growth_per_rise_bytes", "held_at_end_bytes", NULL } },
};

/* The main columns of ARRAY, a list of objects; NULL if it has none. */
static const char *const *main_columns_of(const struct ct_node *array)
{
	const struct ct_node *first = ct_node_child(array, 0);

	for (size_t i = 0; array->key && i < sizeof(main_columns) / sizeof(main_columns[0]); i++)
		if (!strcmp(array->key, main_columns[i].key) &&
		    ct_node_get(first, main_columns[i].marker))
			return main_columns[i].columns;
	return NULL;
}

/* Keys whose null means there is none (for the others: the trace cannot tell). */
static bool null_means_none(const char *key)
{
	static const char *const keys[] = {
		"error",
		"withheld_verdict",
		"caveat",
		"discarded_from_ns",
		"host_address",
		"buffers",
		"verdict",
		"explanation",
		/* process_end: the signal of a program that exited, the error it never got */
		"exit_status",
		"signal",
		"signal_name",
		"cuda_error",
		"cuda_error_api",
		"gpu_failed_bytes",
		"gpu_verdict",
		/* process_end, last_words: the exception and the framework's message it never had */
		"exception",
		"exception_site",
		"exception_message",
		"framework_oom",
		"framework_oom_bytes",
		"out_of_memory",
	};

	for (size_t i = 0; key && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

char *ct_table_value(const struct ct_node *node, int64_t origin_ns)
{
	/* an escape is at most 6 characters for a byte */
	size_t len = node->type == CT_NODE_STRING ? strlen(node->value.str) * 6 + 1 : 64;

	if (node->type == CT_NODE_NULL)
		return g_strdup(null_means_none(node->key) ? "none" : "unknown");
	if (node->type == CT_NODE_STRING && !node->value.str[0])
		return g_strdup("none");
	return ct_format_value(node, origin_ns, g_malloc(len), len);
}

char *ct_table_label(const char *key)
{
	static const char *const suffixes[] = { "_bytes_per_s", "_bytes", "_ns" };
	/* keys whose label without the suffix would be a neighbour's ("framework oom") */
	static const char *const own[][2] = {
		{ "framework_oom_bytes", "framework oom request" },
	};
	char *label;
	size_t n;

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (key && !strcmp(key, own[i][0]))
			return g_strdup(own[i][1]);
	label = g_strdup(key);
	n = strlen(label);

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t s = strlen(suffixes[i]);

		if (n > s && !strcmp(label + n - s, suffixes[i])) {
			label[n - s] = '\0';
			break;
		}
	}
	g_strdelimit(label, "_", ' ');
	return label;
}

char *ct_table_title(const struct ct_node *node)
{
	return node->title ? g_strdup(node->title) : ct_table_label(node->key ? node->key : "");
}

bool ct_table_is_scalar(const struct ct_node *n)
{
	return n->type != CT_NODE_OBJECT && n->type != CT_NODE_ARRAY;
}

bool ct_table_shaped(const struct ct_node *array)
{
	if (!ct_node_count(array))
		return false;
	for (size_t i = 0; i < ct_node_count(array); i++) {
		const struct ct_node *e = ct_node_child(array, i);
		size_t columns = 0;

		if (e->type != CT_NODE_OBJECT)
			return false;
		for (size_t j = 0; j < ct_node_count(e); j++) {
			if (ct_node_child(e, j)->detail)
				continue;
			if (!ct_table_is_scalar(ct_node_child(e, j)))
				return false;
			columns++;
		}
		if (columns > CT_TABLE_SHAPED_COLUMNS)
			return false;
	}
	return true;
}

size_t ct_table_columns(const struct ct_node *array, bool details,
                        const char *keys[CT_TABLE_MAX_COLUMNS])
{
	const char *const *main;
	size_t n = 0;

	if (ct_table_shaped(array)) {
		const struct ct_node *first = ct_node_child(array, 0);

		for (size_t i = 0; i < ct_node_count(first); i++)
			if (!ct_node_child(first, i)->detail)
				keys[n++] = ct_node_child(first, i)->key;
		return n;
	}
	if (details || !ct_node_count(array))
		return 0;
	for (size_t i = 0; i < ct_node_count(array); i++)
		if (ct_node_child(array, i)->type != CT_NODE_OBJECT)
			return 0;
	main = main_columns_of(array);
	if (!main)
		return 0;
	for (; main[n]; n++)
		keys[n] = main[n];
	return n;
}

char *ct_table_row_name(const struct ct_node *row, size_t index, const char *const *keys,
                        size_t ncols, int64_t origin_ns)
{
	GString *name = g_string_new(NULL);

	g_string_printf(name, "Row %zu (", index + 1);
	for (size_t col = 0; col < ncols && col < 3; col++) {
		const struct ct_node *v = ct_node_get(row, keys[col]);
		char *label = ct_table_label(keys[col]);
		char *value = v ? ct_table_value(v, origin_ns) : g_strdup("-");

		g_string_append_printf(name, "%s%s %s", col ? ", " : "", label, value);
		g_free(label);
		g_free(value);
	}
	g_string_append(name, ")");
	return g_string_free(name, FALSE);
}

bool ct_table_column_right(const struct ct_node *array, const char *key)
{
	const struct ct_node *v = ct_node_get(ct_node_child(array, 0), key);

	return v && ct_table_right_aligned(v);
}

bool ct_table_column_cuttable(const char *key)
{
	static const char *const keys[] = { "name", "path", "device_code" };

	for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

bool ct_table_right_aligned(const struct ct_node *n)
{
	return n->type != CT_NODE_STRING && n->type != CT_NODE_BOOL && n->type != CT_NODE_NULL;
}

/* The unit of 1, STEP, STEP^2, ... among NAMES that shows MAX best. */
static struct ct_column_unit scaled_unit(double max, const char *const names[], size_t count,
                                         double step)
{
	struct ct_column_unit u = { names[0], 1, 0 };

	for (size_t i = 1; i < count && max >= step * u.divisor; i++)
		u = (struct ct_column_unit){ names[i], u.divisor * step, 2 };
	return u;
}

struct ct_column_unit ct_table_column(const struct ct_node *array, const char *key, size_t rows,
                                      int64_t origin_ns)
{
	static const char *const bytes[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	static const char *const times[] = { "ns", "us", "ms", "s" };
	static const char *const rates[] = { "B/s", "KB/s", "MB/s", "GB/s", "TB/s" };
	enum ct_unit unit = CT_UNIT_NONE;
	double max = 0;

	for (size_t row = 0; row < rows; row++) {
		const struct ct_node *v = ct_node_get(ct_node_child(array, row), key);

		if (!v || isnan(ct_node_number(v)))
			continue;
		unit = v->unit;
		max = fabs(ct_node_number(v)) > max ? fabs(ct_node_number(v)) : max;
	}
	switch (unit) {
	case CT_UNIT_BYTES:
		return scaled_unit(max, bytes, 5, 1024);
	case CT_UNIT_DURATION:
		return scaled_unit(max, times, 4, 1000);
	case CT_UNIT_BANDWIDTH:
		return scaled_unit(max, rates, 5, 1000);
	case CT_UNIT_RATIO:
		return (struct ct_column_unit){ "%", 0.01, 1 };
	case CT_UNIT_TIME:
		if (origin_ns != INT64_MIN)
			return (struct ct_column_unit){ "s from start", 1e9, 6 };
		return (struct ct_column_unit){ "ns", 1, 0 };
	default:
		return (struct ct_column_unit){ NULL, 1, 0 };
	}
}

char *ct_table_cell(const struct ct_node *v, const struct ct_column_unit *u, int64_t origin_ns)
{
	double x;

	if (!v)
		return g_strdup("-");
	x = ct_node_number(v);
	if (!u->name || isnan(x))
		return ct_table_value(v, origin_ns);
	if (v->unit == CT_UNIT_TIME && origin_ns != INT64_MIN)
		x -= (double)origin_ns;
	return g_strdup_printf("%.*f", u->decimals, x / u->divisor);
}

int64_t ct_table_origin(const struct ct_node *root)
{
	const struct ct_node *start = ct_node_get(ct_node_get(root, "trace"), "start_ns");

	return start && start->type == CT_NODE_I64 ? start->value.i64 : INT64_MIN;
}
