/* SPDX-License-Identifier: MIT */
/*
 * transfers-section.c - the "transfers" section of the report, written
 * from the transfers analysis' result (transfers.h).
 */
#include <math.h>

#include "analysis.h"
#include "transfers.h"

/* VALUE with UNIT, or null when it is NAN (unknown). */
static void write_known(struct ct_doc *doc, const char *key, double value, enum ct_unit unit)
{
	if (isnan(value))
		ct_doc_null(doc, key);
	else
		ct_doc_double(doc, key, value, unit);
}

static void write_totals(struct ct_doc *doc, const struct ct_transfers_result *r)
{
	ct_doc_u64(doc, "copies", r->copies, CT_UNIT_NONE);
	ct_doc_u64(doc, "bytes", r->bytes, CT_UNIT_BYTES);
	ct_doc_i64(doc, "gpu_time_ns", r->gpu_time_ns, CT_UNIT_DURATION);
	ct_doc_i64(doc, "host_time_ns", r->host_time_ns, CT_UNIT_DURATION);
	ct_doc_i64(doc, "cost_ns", r->cost_ns, CT_UNIT_DURATION);
	ct_doc_u64(doc, "gpu_records", r->gpu_records, CT_UNIT_NONE);
	ct_doc_u64(doc, "gpu_records_unmatched", r->gpu_records_unmatched, CT_UNIT_NONE);
	ct_doc_u64(doc, "gpu_records_end_unknown", r->gpu_records_end_unknown, CT_UNIT_NONE);
	ct_doc_u64(doc, "copies_without_gpu_record", r->copies_without_gpu_record, CT_UNIT_NONE);
	ct_doc_u64(doc, "sites", r->sites, CT_UNIT_NONE);
}

static void write_by_direction(struct ct_doc *doc, const GArray *rows)
{
	ct_doc_array(doc, "by_direction", "By direction");
	for (guint i = 0; i < rows->len; i++) {
		const struct ct_transfers_direction *d =
		    &g_array_index(rows, struct ct_transfers_direction, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_string(doc, "direction", ct_direction_label(d->direction));
		ct_doc_string(doc, "host_memory", ct_host_mem_label(d->host));
		ct_doc_bool(doc, "sync", d->sync);
		ct_doc_u64(doc, "count", d->count, CT_UNIT_NONE);
		ct_doc_u64(doc, "bytes", d->bytes, CT_UNIT_BYTES);
		ct_doc_i64(doc, "gpu_time_ns", d->gpu_time_ns, CT_UNIT_DURATION);
		ct_doc_i64(doc, "host_time_ns", d->host_time_ns, CT_UNIT_DURATION);
		ct_doc_i64(doc, "cost_ns", d->cost_ns, CT_UNIT_DURATION);
		write_known(doc, "bandwidth_bytes_per_s", d->bandwidth_bytes_per_s,
		            CT_UNIT_BANDWIDTH);
		write_known(doc, "best_bandwidth_bytes_per_s", d->best_bandwidth_bytes_per_s,
		            CT_UNIT_BANDWIDTH);
		write_known(doc, "of_best", d->of_best, CT_UNIT_RATIO);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_site(struct ct_doc *doc, const struct ct_transfers_site *where)
{
	ct_doc_i64(doc, "pid", where->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", where->process);
	ct_doc_i64(doc, "tid", where->tid, CT_UNIT_ID);
	ct_doc_string(doc, "site", where->site);
	ct_doc_string(doc, "nvtx_path", where->nvtx_path);
	ct_doc_string(doc, "api", where->api);
}

static void write_hotspot(struct ct_doc *doc, const struct ct_transfers_hotspot *h)
{
	ct_doc_object(doc, NULL, NULL);
	write_site(doc, &h->where);
	if (h->has_device)
		ct_doc_u64(doc, "device", h->device, CT_UNIT_ID);
	else
		ct_doc_null(doc, "device");
	ct_doc_string(doc, "direction", ct_direction_label(h->direction));
	ct_doc_string(doc, "host_memory", ct_host_mem_label(h->host));
	ct_doc_bool(doc, "sync", h->sync);
	ct_doc_bool(doc, "blocking", h->blocking);
	ct_doc_string(doc, "size_class", h->size_class);
	ct_doc_u64(doc, "count", h->count, CT_UNIT_NONE);
	ct_doc_u64(doc, "bytes", h->bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "mean_bytes", h->mean_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "gpu_records", h->gpu_records, CT_UNIT_NONE);
	ct_doc_i64(doc, "gpu_time_ns", h->gpu_time_ns, CT_UNIT_DURATION);
	ct_doc_i64(doc, "host_time_ns", h->host_time_ns, CT_UNIT_DURATION);
	ct_doc_i64(doc, "cost_ns", h->cost_ns, CT_UNIT_DURATION);
	write_known(doc, "cost_share", h->cost_share, CT_UNIT_RATIO);
	write_known(doc, "bandwidth_bytes_per_s", h->bandwidth_bytes_per_s, CT_UNIT_BANDWIDTH);
	write_known(doc, "best_bandwidth_bytes_per_s", h->best_bandwidth_bytes_per_s,
	            CT_UNIT_BANDWIDTH);
	write_known(doc, "of_best", h->of_best, CT_UNIT_RATIO);
	write_known(doc, "device_peak_bytes_per_s", h->device_peak_bytes_per_s, CT_UNIT_BANDWIDTH);
	write_known(doc, "of_device_peak", h->of_device_peak, CT_UNIT_RATIO);
	ct_doc_i64(doc, "blocked_probed_ns", h->blocked_probed_ns, CT_UNIT_DURATION);
	ct_doc_i64(doc, "gpu_idle_while_blocked_ns", h->gpu_idle_while_blocked_ns,
	           CT_UNIT_DURATION);
	ct_doc_i64(doc, "first_ns", h->first_ns, CT_UNIT_TIME);
	ct_doc_i64(doc, "last_ns", h->last_ns, CT_UNIT_TIME);
	ct_doc_end(doc);
}

static void write_finding(struct ct_doc *doc, const struct ct_transfers_finding *f)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_string(doc, "kind", f->kind);
	write_site(doc, &f->where);
	ct_doc_string(doc, "direction", ct_direction_label(f->direction));
	ct_doc_string(doc, "host_memory", ct_host_mem_label(f->host));
	ct_doc_bool(doc, "sync", f->sync);
	ct_doc_string(doc, "size_class", f->size_class);
	ct_doc_u64(doc, "count", f->count, CT_UNIT_NONE);
	ct_doc_u64(doc, "bytes", f->bytes, CT_UNIT_BYTES);
	ct_doc_i64(doc, "time_ns", f->time_ns, CT_UNIT_DURATION);
	if (f->host_address)
		ct_doc_u64(doc, "host_address", f->host_address, CT_UNIT_ADDRESS);
	else
		ct_doc_null(doc, "host_address");
	if (f->buffers)
		ct_doc_u64(doc, "buffers", f->buffers, CT_UNIT_NONE);
	else
		ct_doc_null(doc, "buffers");
	ct_doc_bool(doc, "at_least", f->at_least);
	ct_doc_bool(doc, "same_bytes", f->same_bytes);
	ct_doc_string(doc, "message", f->message);
	ct_doc_string(doc, "advice", f->advice);
	ct_doc_end(doc);
}

static void write_section(struct ct_doc *doc, const struct ct_result *results, size_t count)
{
	const struct ct_transfers_result *r = ct_result_of(results, count, CT_ANALYSIS_TRANSFERS);

	ct_doc_object(doc, "transfers", "Transfers");
	write_totals(doc, r);
	write_by_direction(doc, r->by_direction);
	ct_doc_array(doc, "hotspots", "Hotspots, by the time they cost");
	for (guint i = 0; i < r->hotspots->len; i++)
		write_hotspot(doc, &g_array_index(r->hotspots, struct ct_transfers_hotspot, i));
	ct_doc_end(doc);
	ct_doc_u64(doc, "finding_count", r->finding_count, CT_UNIT_NONE);
	ct_doc_array(doc, "findings", "Findings");
	for (guint i = 0; i < r->findings->len; i++)
		write_finding(doc, &g_array_index(r->findings, struct ct_transfers_finding, i));
	ct_doc_end(doc);
	ct_doc_end(doc);
}

const struct ct_section_class ct_transfers_section = {
	.name = "transfers",
	.write = write_section,
};
