/* SPDX-License-Identifier: MIT */
/*
 * framework.c - the framework analysis (framework.h) and its section,
 * "framework": per process, framework and device, what the framework's
 * allocator held as it counts it, beside what the driver held; the
 * framework's out-of-memory errors; the frameworks imported; the uncaught
 * exceptions processes died of.
 *
 * Memory: one entry per (process, framework, device) that has figures,
 * found through a table in the process's slot; strings are copied once.
 * What the trace says of the process later than the probe's first events
 * (its name, its devices' memory) is taken at the end.
 */
#include <string.h>

#include "analysis.h"
#include "common/saturate.h"
#include "model/call-stacks.h"
#include "framework.h"
#include "memory.h"

struct framework {
	struct ct_framework_result result;
	const struct ct_options *opts; /* borrowed */
	/*
	 * The process of each load, exception and device, in their order: a
	 * process is named (tracer_info) after its first events, perhaps
	 * after the probe's, so names are taken at the end.
	 */
	GPtrArray *load_processes, *exception_processes, *device_processes;
	int slot;          /* per process: its table (framework << 32 | device) -> 1 + index */
	GPtrArray *tables; /* every such table, to free */
};

const char *ct_framework_name(const char *label)
{
	static const struct {
		const char *label, *name;
	} names[] = { { "pytorch", "PyTorch" }, { "jax", "JAX" }, { "tensorflow", "TensorFlow" } };

	for (size_t i = 0; label && i < G_N_ELEMENTS(names); i++)
		if (!strcmp(label, names[i].label))
			return names[i].name;
	return "the framework";
}

/* A pool this share of the device, taken at once at its start, is preallocation. */
#define PREALLOCATION_SHARE 0.5

const struct ct_framework_device *ct_framework_device_of(const struct ct_framework_result *result,
                                                         int64_t pid, const char *label)
{
	for (guint i = 0; result && label && i < result->devices->len; i++) {
		const struct ct_framework_device *d =
		    &g_array_index(result->devices, struct ct_framework_device, i);

		if (d->pid == pid && !g_strcmp0(ct_framework_label(d->framework), label))
			return d;
	}
	return NULL;
}

double ct_framework_first_share(const struct ct_framework_device *device)
{
	return device->device_total_bytes
	           ? (double)device->first_reserved_bytes / (double)device->device_total_bytes
	           : 0;
}

bool ct_framework_preallocated(const struct ct_framework_device *device)
{
	return device->framework == CT_FRAMEWORK_JAX &&
	       ct_framework_first_share(device) >= PREALLOCATION_SHARE;
}

/* A text field of an event as a string of the result ("" when absent). */
static const char *keep(struct framework *f, const char *text, uint16_t len)
{
	return g_string_chunk_insert_len(f->result.strings, text ? text : "", text ? len : 0);
}

static const char *procname_of(struct framework *f, const struct ct_process *p)
{
	return g_string_chunk_insert_const(f->result.strings, p->procname);
}

/* The version the process's framework_load gave FRAMEWORK, "" when none was seen. */
static const char *version_of(const struct framework *f, int64_t pid, uint8_t framework)
{
	for (guint i = f->result.loads->len; i-- > 0;) {
		const struct ct_framework_load *l =
		    &g_array_index(f->result.loads, struct ct_framework_load, i);

		if (l->pid == pid && l->framework == framework)
			return l->version;
	}
	return "";
}

static struct ct_framework_device *entry_of(struct framework *f, struct ct_process *p,
                                            uint8_t framework, uint32_t device)
{
	GHashTable *table = p->slot[f->slot];
	gpointer key = GSIZE_TO_POINTER(((gsize)framework << 32) | device);
	gsize index;
	struct ct_framework_device entry = { 0 };

	if (!table) {
		table = g_hash_table_new(g_direct_hash, g_direct_equal);
		p->slot[f->slot] = table;
		g_ptr_array_add(f->tables, table);
	}
	index = GPOINTER_TO_SIZE(g_hash_table_lookup(table, key));
	if (index)
		return &g_array_index(f->result.devices, struct ct_framework_device, index - 1);
	entry.pid = p->pid;
	g_ptr_array_add(f->device_processes, p);
	entry.framework = framework;
	entry.device = device;
	entry.version = version_of(f, p->pid, framework);
	entry.ooms = g_array_new(FALSE, TRUE, sizeof(struct ct_framework_oom));
	entry.sites = g_array_new(FALSE, TRUE, sizeof(struct ct_framework_site));
	ct_series_init(&entry.in_use, f->opts->series_points);
	ct_series_init(&entry.reserved, f->opts->series_points);
	g_array_append_val(f->result.devices, entry);
	g_hash_table_insert(table, key, GSIZE_TO_POINTER((gsize)f->result.devices->len));
	return &g_array_index(f->result.devices, struct ct_framework_device,
	                      f->result.devices->len - 1);
}

static void on_load(struct framework *f, const struct ct_event *ev)
{
	const struct ct_ev_framework_load *e = &ev->u.framework_load;
	struct ct_framework_load load = {
		.pid = ev->process->pid,
		.time_ns = ev->time_ns,
		.framework = e->framework,
		.version = keep(f, e->version, e->version_len),
	};

	g_array_append_val(f->result.loads, load);
	g_ptr_array_add(f->load_processes, ev->process);
}

/*
 * VALUE at TIME_NS into SERIES. A framework's high-water mark PEAK above
 * the one told before (*TOLD) was reached since the last figures, between
 * two samples: the bucket's highest holds it, so that the series shows
 * every peak however the samples fall.
 */
static void add_figure(struct ct_series *series, int64_t time_ns, uint64_t value, uint64_t peak,
                       uint64_t *told)
{
	if (peak > *told && peak > value)
		ct_series_add(series, time_ns, ct_sat_i64(peak));
	*told = peak;
	ct_series_add(series, time_ns, ct_sat_i64(value));
}

static void on_memory(struct framework *f, const struct ct_event *ev)
{
	const struct ct_ev_framework_memory *e = &ev->u.framework_memory;
	struct ct_framework_device *d = entry_of(f, ev->process, e->framework, e->device);

	if (!d->samples)
		d->first_ns = ev->time_ns;
	if (!d->first_reserved_ns && e->reserved) {
		d->first_reserved_bytes = e->reserved;
		d->first_reserved_ns = ev->time_ns;
	}
	d->samples++;
	d->last_ns = ev->time_ns;
	add_figure(&d->in_use, ev->time_ns, e->in_use, e->peak_in_use, &d->told_peak_in_use);
	add_figure(&d->reserved, ev->time_ns, e->reserved, e->peak_reserved,
	           &d->told_peak_reserved);
	d->in_use_bytes = e->in_use;
	d->reserved_bytes = e->reserved;
	d->limit_bytes = e->limit;
	/* The framework's marks only rise, but it may reset them (reset_peak_memory_stats). */
	d->peak_in_use_bytes = MAX(d->peak_in_use_bytes, MAX(e->peak_in_use, e->in_use));
	d->peak_reserved_bytes = MAX(d->peak_reserved_bytes, MAX(e->peak_reserved, e->reserved));
	/* The figures read right after an error complete it. */
	if (e->at == CT_FRAMEWORK_OOM && d->ooms->len) {
		struct ct_framework_oom *o =
		    &g_array_index(d->ooms, struct ct_framework_oom, d->ooms->len - 1);

		if (!o->figures_known) {
			o->figures_known = true;
			o->in_use_bytes = e->in_use;
			o->reserved_bytes = e->reserved;
		}
	}
}

static void on_oom(struct framework *f, const struct ct_event *ev)
{
	const struct ct_ev_framework_oom *e = &ev->u.framework_oom;
	struct ct_framework_device *d = entry_of(f, ev->process, e->framework, e->device);

	struct ct_framework_oom oom = {
		.time_ns = ev->time_ns,
		.requested_bytes = e->requested,
		.limit_bytes = e->limit,
		.device_free_bytes = e->device_free,
	};

	d->oom_count++;
	if (d->ooms->len < CT_FRAMEWORK_OOMS_MAX)
		g_array_append_val(d->ooms, oom);
}

/*
 * A site of the framework's tensors at a moment. At an out-of-memory
 * error, those of the first only: the probe tells no other, and the first
 * is the one the findings explain.
 */
static void on_site(struct framework *f, const struct ct_event *ev)
{
	const struct ct_ev_framework_site *e = &ev->u.framework_site;
	struct ct_framework_device *d = entry_of(f, ev->process, e->framework, e->device);
	char site[512];
	struct ct_framework_site s = {
		.at = e->at,
		.file = keep(f, e->file, e->file_len),
		.function = keep(f, e->function, e->function_len),
		.line = e->line,
		.bytes = e->bytes,
		.count = e->count,
	};

	if (e->at == CT_FRAMEWORK_OOM && d->oom_count > 1)
		return;
	ct_python_site_format(s.file, s.line, s.function, site, sizeof(site));
	s.site = g_string_chunk_insert_const(f->result.strings, site);
	g_array_append_val(d->sites, s);
}

static void on_exception(struct framework *f, const struct ct_event *ev)
{
	const struct ct_ev_python_exception *e = &ev->u.python_exception;
	char site[512];
	struct ct_framework_exception x = {
		.pid = ev->process->pid,
		.time_ns = ev->time_ns,
		.type = keep(f, e->type, e->type_len),
		.message = keep(f, e->message, e->message_len),
		.file = keep(f, e->file, e->file_len),
		.line = e->line,
		.function = keep(f, e->function, e->function_len),
		.raised_file = keep(f, e->raised_file, e->raised_file_len),
		.raised_line = e->raised_line,
	};

	ct_python_site_format(x.file, x.line, x.function, site, sizeof(site));
	x.site = g_string_chunk_insert_const(f->result.strings, site);
	g_array_append_val(f->result.exceptions, x);
	g_ptr_array_add(f->exception_processes, ev->process);
}

static void framework_event(void *state, const struct ct_event *ev)
{
	struct framework *f = state;

	switch (ev->type) {
	case CT_EV_FRAMEWORK_LOAD:
		on_load(f, ev);
		break;
	case CT_EV_FRAMEWORK_MEMORY:
		on_memory(f, ev);
		break;
	case CT_EV_FRAMEWORK_OOM:
		on_oom(f, ev);
		break;
	case CT_EV_PYTHON_EXCEPTION:
		on_exception(f, ev);
		break;
	case CT_EV_FRAMEWORK_SITE:
		on_site(f, ev);
		break;
	default:
		break;
	}
}

static enum ct_analysis_status framework_finish(void *state, int64_t end_ns)
{
	(void)state;
	(void)end_ns;
	return CT_ANALYSIS_OK;
}

static enum ct_analysis_status framework_result(void *state, const void **result)
{
	struct framework *f = state;

	for (guint i = 0; i < f->result.loads->len; i++)
		g_array_index(f->result.loads, struct ct_framework_load, i).process =
		    procname_of(f, f->load_processes->pdata[i]);
	for (guint i = 0; i < f->result.exceptions->len; i++)
		g_array_index(f->result.exceptions, struct ct_framework_exception, i).process =
		    procname_of(f, f->exception_processes->pdata[i]);
	for (guint i = 0; i < f->result.devices->len; i++) {
		struct ct_framework_device *d =
		    &g_array_index(f->result.devices, struct ct_framework_device, i);
		const struct ct_process *p = f->device_processes->pdata[i];
		const struct ct_device *device =
		    d->device < G_N_ELEMENTS(p->devices) ? p->devices[d->device] : NULL;

		d->process = procname_of(f, p);
		d->device_total_bytes = device ? device->global_memory : 0;
	}
	*result = &f->result;
	return CT_ANALYSIS_OK;
}

/* ------------------------------------------------------------ section */

/* The driver's peak of the device memory of PID on DEVICE, -1 when not known. */
static int64_t driver_peak(const struct ct_memory_result *memory, int64_t pid, uint32_t device)
{
	for (guint i = 0; memory && i < memory->devices->len; i++) {
		const struct ct_memory_device *d =
		    &g_array_index(memory->devices, struct ct_memory_device, i);

		if (d->pid == pid && d->device == device && d->has_peak)
			return d->peak_bytes;
	}
	return -1;
}

static void write_oom(struct ct_doc *doc, const struct ct_framework_oom *o)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "time_ns", o->time_ns, CT_UNIT_TIME);
	ct_doc_u64(doc, "requested_bytes", o->requested_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "limit_bytes", o->limit_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "device_free_bytes", o->device_free_bytes, CT_UNIT_BYTES);
	if (o->figures_known) {
		ct_doc_u64(doc, "in_use_bytes", o->in_use_bytes, CT_UNIT_BYTES);
		ct_doc_u64(doc, "reserved_bytes", o->reserved_bytes, CT_UNIT_BYTES);
		ct_doc_u64(doc, "reserved_unused_bytes",
		           o->reserved_bytes > o->in_use_bytes ? o->reserved_bytes - o->in_use_bytes
		                                               : 0,
		           CT_UNIT_BYTES);
	} else {
		ct_doc_null(doc, "in_use_bytes");
		ct_doc_null(doc, "reserved_bytes");
		ct_doc_null(doc, "reserved_unused_bytes");
	}
	ct_doc_end(doc);
}

static void write_site(struct ct_doc *doc, const struct ct_framework_site *s)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_string(doc, "at", ct_framework_moment_label(s->at));
	ct_doc_string(doc, "site", s->site);
	ct_doc_string(doc, "file", s->file);
	ct_doc_u64(doc, "line", s->line, CT_UNIT_ID);
	ct_doc_string(doc, "function", s->function);
	ct_doc_u64(doc, "bytes", s->bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "count", s->count, CT_UNIT_NONE);
	ct_doc_end(doc);
}

static void write_device(struct ct_doc *doc, const struct ct_framework_device *d,
                         const struct ct_memory_result *memory)
{
	int64_t driver = driver_peak(memory, d->pid, d->device);

	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", d->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", d->process);
	ct_doc_string(doc, "framework", ct_framework_label(d->framework));
	ct_doc_string(doc, "version", d->version);
	ct_doc_u64(doc, "device", d->device, CT_UNIT_ID);
	ct_doc_u64(doc, "samples", d->samples, CT_UNIT_NONE);
	ct_doc_u64(doc, "peak_in_use_bytes", d->peak_in_use_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "peak_reserved_bytes", d->peak_reserved_bytes, CT_UNIT_BYTES);
	if (driver >= 0)
		ct_doc_i64(doc, "driver_peak_bytes", driver, CT_UNIT_BYTES);
	else
		ct_doc_null(doc, "driver_peak_bytes");
	ct_doc_u64(doc, "in_use_bytes", d->in_use_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "reserved_bytes", d->reserved_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "reserved_unused_bytes",
	           d->reserved_bytes > d->in_use_bytes ? d->reserved_bytes - d->in_use_bytes : 0,
	           CT_UNIT_BYTES);
	ct_doc_i64(doc, "last_time_ns", d->last_ns, CT_UNIT_TIME);
	if (d->limit_bytes)
		ct_doc_u64(doc, "limit_bytes", d->limit_bytes, CT_UNIT_BYTES);
	else
		ct_doc_null(doc, "limit_bytes");
	ct_doc_u64(doc, "first_reserved_bytes", d->first_reserved_bytes, CT_UNIT_BYTES);
	ct_doc_i64(doc, "first_reserved_time_ns", d->first_reserved_ns, CT_UNIT_TIME);
	if (d->device_total_bytes) {
		ct_doc_u64(doc, "device_total_bytes", d->device_total_bytes, CT_UNIT_BYTES);
		ct_doc_ratio(doc, "first_reserved_share", (double)d->first_reserved_bytes,
		             (double)d->device_total_bytes);
	} else {
		ct_doc_null(doc, "device_total_bytes");
		ct_doc_null(doc, "first_reserved_share");
	}
	ct_doc_u64(doc, "ooms", d->oom_count, CT_UNIT_NONE);
	ct_doc_array(doc, "oom_errors", "Its out-of-memory errors (the first ones)");
	for (guint i = 0; i < d->ooms->len; i++)
		write_oom(doc, &g_array_index(d->ooms, struct ct_framework_oom, i));
	ct_doc_end(doc);
	ct_doc_array(doc, "tensor_sites", "Where its tensors were allocated (--tensor-sites)");
	for (guint i = 0; i < d->sites->len; i++)
		write_site(doc, &g_array_index(d->sites, struct ct_framework_site, i));
	ct_doc_end(doc);
	ct_doc_end(doc);
}

/* Each device's figures over time, in time buckets as memory.timeline[]. */
static void write_timeline(struct ct_doc *doc, const struct ct_framework_result *r)
{
	ct_doc_array(doc, "timeline", "Framework memory over time");
	for (guint i = 0; i < r->devices->len; i++) {
		const struct ct_framework_device *d =
		    &g_array_index(r->devices, struct ct_framework_device, i);

		for (size_t j = 0; j < d->in_use.points->len; j++) {
			const struct ct_series_point *u = ct_series_at(&d->in_use, j);
			const struct ct_series_point *v =
			    j < d->reserved.points->len ? ct_series_at(&d->reserved, j) : u;

			ct_doc_object(doc, NULL, NULL);
			ct_doc_i64(doc, "pid", d->pid, CT_UNIT_ID);
			ct_doc_string(doc, "framework", ct_framework_label(d->framework));
			ct_doc_u64(doc, "device", d->device, CT_UNIT_ID);
			ct_doc_i64(doc, "time_ns", u->time_ns, CT_UNIT_TIME);
			ct_doc_i64(doc, "in_use_bytes", u->last, CT_UNIT_BYTES);
			ct_doc_i64(doc, "max_in_use_bytes", u->max, CT_UNIT_BYTES);
			ct_doc_i64(doc, "reserved_bytes", v->last, CT_UNIT_BYTES);
			ct_doc_i64(doc, "max_reserved_bytes", v->max, CT_UNIT_BYTES);
			ct_doc_end(doc);
		}
	}
	ct_doc_end(doc);
}

static void write_exception(struct ct_doc *doc, const struct ct_framework_exception *x)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", x->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", x->process);
	ct_doc_i64(doc, "time_ns", x->time_ns, CT_UNIT_TIME);
	ct_doc_string(doc, "type", x->type);
	ct_doc_string(doc, "message", x->message);
	ct_doc_string(doc, "file", x->file);
	ct_doc_u64(doc, "line", x->line, CT_UNIT_NONE);
	ct_doc_string(doc, "function", x->function);
	ct_doc_string(doc, "raised_file", x->raised_file);
	ct_doc_u64(doc, "raised_line", x->raised_line, CT_UNIT_NONE);
	ct_doc_string(doc, "site", x->site);
	ct_doc_end(doc);
}

static void write_load(struct ct_doc *doc, const struct ct_framework_load *l)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", l->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", l->process);
	ct_doc_string(doc, "framework", ct_framework_label(l->framework));
	ct_doc_string(doc, "version", l->version);
	ct_doc_i64(doc, "time_ns", l->time_ns, CT_UNIT_TIME);
	ct_doc_end(doc);
}

static void write_section(struct ct_doc *doc, const struct ct_result *results, size_t count)
{
	const struct ct_framework_result *r = ct_result_of(results, count, CT_ANALYSIS_FRAMEWORK);
	const struct ct_memory_result *memory = ct_result_of(results, count, CT_ANALYSIS_MEMORY);

	ct_doc_object(doc, "framework", "What the frameworks say (the Python probe)");
	ct_doc_array(doc, "devices",
	             "Framework memory by process and device, beside the driver's peak");
	for (guint i = 0; i < r->devices->len; i++)
		write_device(doc, &g_array_index(r->devices, struct ct_framework_device, i),
		             memory);
	ct_doc_end(doc);
	write_timeline(doc, r);
	ct_doc_array(doc, "exceptions", "Uncaught Python exceptions");
	for (guint i = 0; i < r->exceptions->len; i++)
		write_exception(doc,
		                &g_array_index(r->exceptions, struct ct_framework_exception, i));
	ct_doc_end(doc);
	ct_doc_array(doc, "loaded", "Frameworks imported");
	for (guint i = 0; i < r->loads->len; i++)
		write_load(doc, &g_array_index(r->loads, struct ct_framework_load, i));
	ct_doc_end(doc);
	ct_doc_end(doc);
}

const struct ct_section_class ct_framework_section = {
	.name = "framework",
	.write = write_section,
};

static enum ct_analysis_status framework_create(struct ct_context *ctx,
                                                const struct ct_options *opts, void **state)
{
	struct framework *f = g_new0(struct framework, 1);

	*state = f;
	f->opts = opts;
	f->result.devices = g_array_new(FALSE, TRUE, sizeof(struct ct_framework_device));
	f->result.exceptions = g_array_new(FALSE, TRUE, sizeof(struct ct_framework_exception));
	f->result.loads = g_array_new(FALSE, TRUE, sizeof(struct ct_framework_load));
	f->result.strings = g_string_chunk_new(256);
	f->tables = g_ptr_array_new_with_free_func((GDestroyNotify)g_hash_table_destroy);
	f->load_processes = g_ptr_array_new();
	f->exception_processes = g_ptr_array_new();
	f->device_processes = g_ptr_array_new();
	f->slot = ct_analysis_slot(ctx);
	return f->slot < 0 ? CT_ANALYSIS_NO_SLOT : CT_ANALYSIS_OK;
}

static void framework_destroy(void *state)
{
	struct framework *f = state;

	if (!f)
		return;
	for (guint i = 0; i < f->result.devices->len; i++) {
		struct ct_framework_device *d =
		    &g_array_index(f->result.devices, struct ct_framework_device, i);

		g_array_free(d->ooms, TRUE);
		g_array_free(d->sites, TRUE);
		ct_series_release(&d->in_use);
		ct_series_release(&d->reserved);
	}
	g_array_free(f->result.devices, TRUE);
	g_array_free(f->result.exceptions, TRUE);
	g_array_free(f->result.loads, TRUE);
	g_string_chunk_free(f->result.strings);
	g_ptr_array_free(f->tables, TRUE);
	g_ptr_array_free(f->load_processes, TRUE);
	g_ptr_array_free(f->exception_processes, TRUE);
	g_ptr_array_free(f->device_processes, TRUE);
	g_free(f);
}

const struct ct_analysis_class ct_framework_analysis = {
	.name = "framework",
	.id = CT_ANALYSIS_FRAMEWORK,
	.section = &ct_framework_section,
	.wants = CT_EV_BIT(CT_EV_FRAMEWORK_LOAD) | CT_EV_BIT(CT_EV_FRAMEWORK_MEMORY) |
	         CT_EV_BIT(CT_EV_FRAMEWORK_OOM) | CT_EV_BIT(CT_EV_PYTHON_EXCEPTION) |
	         CT_EV_BIT(CT_EV_FRAMEWORK_SITE),
	.create = framework_create,
	.event = framework_event,
	.finish = framework_finish,
	.result = framework_result,
	.destroy = framework_destroy,
};
