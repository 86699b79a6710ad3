/* SPDX-License-Identifier: MIT */
/*
 * memory-section.c - the "memory" section of the report, written from the
 * results of the memory analysis (memory.h: devices, growing ranges,
 * timeline) and of the fragmentation analysis (fragmentation.h:
 * failures, fragmentation), whichever ran, in the order they were asked
 * for.
 */

#include <string.h>

#include "analysis.h"
#include "fragmentation.h"
#include "memory.h"

/* ------------------------------------------------------------ memory */

/* VALUE with UNIT, or null when it is not KNOWN. */
static void write_i64_known(struct ct_doc *doc, const char *key, bool known, int64_t value,
                            enum ct_unit unit)
{
	if (known)
		ct_doc_i64(doc, key, value, unit);
	else
		ct_doc_null(doc, key);
}

static void write_caveats(struct ct_doc *doc, const GArray *caveats)
{
	ct_doc_array(doc, "caveats", "Caveats");
	for (guint i = 0; caveats && i < caveats->len; i++) {
		const struct ct_caveat *c = &g_array_index(caveats, struct ct_caveat, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_string(doc, "figure", c->figure);
		ct_doc_string(doc, "caveat", c->caveat);
		ct_doc_string(doc, "cause", c->cause);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_alloc(struct ct_doc *doc, const struct ct_memory_alloc *a)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_u64(doc, "address", a->address, CT_UNIT_ADDRESS);
	ct_doc_u64(doc, "size", a->size, CT_UNIT_BYTES);
	ct_doc_string(doc, "kind", ct_mem_kind_label(a->kind));
	write_i64_known(doc, "alloc_time_ns", a->time_known, a->alloc_time_ns, CT_UNIT_TIME);
	write_i64_known(doc, "age_ns", a->time_known, a->age_ns, CT_UNIT_DURATION);
	ct_doc_string(doc, "site", a->site);
	ct_doc_string(doc, "nvtx_path", a->nvtx_path);
	ct_doc_string(doc, "api", a->api);
	ct_doc_i64(doc, "tid", a->tid, CT_UNIT_ID);
	ct_doc_end(doc);
}

static void write_allocs(struct ct_doc *doc, const char *key, const char *title,
                         const GArray *allocs)
{
	ct_doc_array(doc, key, title);
	for (guint i = 0; i < allocs->len; i++)
		write_alloc(doc, &g_array_index(allocs, struct ct_memory_alloc, i));
	ct_doc_end(doc);
}

static void write_stack(struct ct_doc *doc, const GArray *stack)
{
	ct_doc_detail_array(doc, "stack");
	for (guint i = 0; i < stack->len; i++) {
		const struct ct_stack_frame *f = &g_array_index(stack, struct ct_stack_frame, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_u64(doc, "address", f->address, CT_UNIT_ADDRESS);
		ct_doc_string(doc, "function", f->symbol.function);
		ct_doc_string(doc, "file", f->symbol.file);
		ct_doc_u64(doc, "line", f->symbol.line, CT_UNIT_ID);
		ct_doc_string(doc, "object", f->symbol.object);
		ct_doc_bool(doc, "folded", f->folded);
		ct_doc_bool(doc, "inlined", f->inlined);
		ct_doc_bool(doc, "python", f->python);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_sites(struct ct_doc *doc, const char *key, const char *title, const GArray *sites)
{
	ct_doc_array(doc, key, title);
	for (guint i = 0; i < sites->len; i++) {
		const struct ct_memory_leak_site *s =
		    &g_array_index(sites, struct ct_memory_leak_site, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_string(doc, "site", s->site);
		ct_doc_u64(doc, "count", s->count, CT_UNIT_NONE);
		ct_doc_u64(doc, "bytes", s->bytes, CT_UNIT_BYTES);
		if (s->stack) {
			ct_doc_string(doc, "function", s->function);
			ct_doc_string(doc, "file", s->file);
			ct_doc_u64(doc, "line", s->line, CT_UNIT_ID);
			write_stack(doc, s->stack);
		}
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_reclaimed(struct ct_doc *doc, const GArray *reclaimed)
{
	ct_doc_array(doc, "reclaimed", "Never freed by the program, reclaimed by CUDA");
	for (guint i = 0; i < reclaimed->len; i++) {
		const struct ct_memory_reclaimed *r =
		    &g_array_index(reclaimed, struct ct_memory_reclaimed, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_u64(doc, "address", r->address, CT_UNIT_ADDRESS);
		ct_doc_u64(doc, "size", r->size, CT_UNIT_BYTES);
		ct_doc_string(doc, "kind", ct_mem_kind_label(r->kind));
		write_i64_known(doc, "alloc_time_ns", r->time_known, r->alloc_time_ns,
		                CT_UNIT_TIME);
		ct_doc_i64(doc, "reclaimed_ns", r->reclaimed_ns, CT_UNIT_TIME);
		ct_doc_string(doc, "reclaimed_by", r->reclaimed_by);
		ct_doc_string(doc, "site", r->site);
		ct_doc_i64(doc, "tid", r->tid, CT_UNIT_ID);
		ct_doc_string(doc, "note", r->note);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_kinds(struct ct_doc *doc, const GArray *kinds)
{
	ct_doc_array(doc, "kinds", "By kind");
	for (guint i = 0; i < kinds->len; i++) {
		const struct ct_memory_kind *k = &g_array_index(kinds, struct ct_memory_kind, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_string(doc, "kind", ct_mem_kind_label(k->kind));
		ct_doc_i64(doc, "peak_bytes", k->peak_bytes, CT_UNIT_BYTES);
		ct_doc_i64(doc, "at_device_peak_bytes", k->at_device_peak_bytes, CT_UNIT_BYTES);
		ct_doc_i64(doc, "live_at_end_bytes", k->live_at_end_bytes, CT_UNIT_BYTES);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

/* What the list of leaks is, for people. */
static const char *leaks_title(const struct ct_memory_device *d)
{
	if (d->leaks_possible)
		return d->end_lower_bound ? "Possible leaks, live at the end (at least these)"
		                          : "Possible leaks, live at the end";
	if (d->exit_freed_count)
		return d->end_lower_bound
		           ? "Live at the end, or freed only as Python exited (at least these)"
		           : "Live at the end, or freed only as Python exited";
	return d->end_lower_bound ? "Live at the end (at least these)" : "Live at the end";
}

static void write_device(struct ct_doc *doc, const struct ct_memory_device *d)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", d->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", d->process);
	ct_doc_string(doc, "hostname", d->hostname);
	ct_doc_u64(doc, "device", d->device, CT_UNIT_ID);
	ct_doc_i64(doc, "peak_bytes", d->peak_bytes, CT_UNIT_BYTES);
	ct_doc_i64(doc, "peak_low_bytes", d->peak_low_bytes, CT_UNIT_BYTES);
	ct_doc_i64(doc, "peak_high_bytes", d->peak_high_bytes, CT_UNIT_BYTES);
	if (d->has_peak)
		ct_doc_i64(doc, "peak_time_ns", d->peak_time_ns, CT_UNIT_TIME);
	else
		ct_doc_null(doc, "peak_time_ns");
	ct_doc_i64(doc, "live_at_end_bytes", d->live_at_end_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "allocations", d->allocations, CT_UNIT_NONE);
	ct_doc_u64(doc, "frees", d->frees, CT_UNIT_NONE);
	ct_doc_u64(doc, "bytes_allocated", d->bytes_allocated, CT_UNIT_BYTES);
	ct_doc_u64(doc, "unknown_frees", d->unknown_frees, CT_UNIT_NONE);
	ct_doc_u64(doc, "failed_frees", d->failed_frees, CT_UNIT_NONE);
	ct_doc_u64(doc, "unfinished_frees", d->unfinished_frees, CT_UNIT_NONE);
	ct_doc_u64(doc, "before_window_allocations", d->before_window_allocations, CT_UNIT_NONE);
	ct_doc_u64(doc, "before_window_bytes", d->before_window_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "failures", d->failures, CT_UNIT_NONE);
	write_kinds(doc, d->kinds);
	ct_doc_u64(doc, "peak_allocation_count", d->peak_allocation_count, CT_UNIT_NONE);
	write_allocs(doc, "peak_allocations",
	             d->peak_lower_bound ? "Live at the peak (at least these)" : "Live at the peak",
	             d->peak_allocations);
	write_sites(doc, "peak_sites", "Live at the peak, by site", d->peak_sites);
	ct_doc_u64(doc, "leak_count", d->leak_count, CT_UNIT_NONE);
	ct_doc_u64(doc, "leaked_bytes", d->leaked_bytes, CT_UNIT_BYTES);
	write_allocs(doc, "leaks", leaks_title(d), d->leaks);
	write_sites(doc, "leak_sites", "Live at the end, by site", d->leak_sites);
	ct_doc_u64(doc, "exit_freed_count", d->exit_freed_count, CT_UNIT_NONE);
	ct_doc_u64(doc, "exit_freed_bytes", d->exit_freed_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "reclaimed_count", d->reclaimed_count, CT_UNIT_NONE);
	ct_doc_u64(doc, "reclaimed_bytes", d->reclaimed_bytes, CT_UNIT_BYTES);
	write_reclaimed(doc, d->reclaimed);
	write_caveats(doc, d->caveats);
	ct_doc_end(doc);
}

static void write_growing_ranges(struct ct_doc *doc, const GArray *ranges)
{
	ct_doc_array(doc, "growing_ranges", "NVTX ranges that grow step after step");
	for (guint i = 0; i < ranges->len; i++) {
		const struct ct_memory_growing_range *r =
		    &g_array_index(ranges, struct ct_memory_growing_range, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "pid", r->pid, CT_UNIT_ID);
		ct_doc_string(doc, "process", r->process);
		ct_doc_string(doc, "range", r->range);
		ct_doc_u64(doc, "repetitions", r->repetitions, CT_UNIT_NONE);
		ct_doc_u64(doc, "growing_repetitions", r->growing_repetitions, CT_UNIT_NONE);
		ct_doc_i64(doc, "held_after_first_bytes", r->held_after_first_bytes, CT_UNIT_BYTES);
		ct_doc_i64(doc, "held_after_last_bytes", r->held_after_last_bytes, CT_UNIT_BYTES);
		ct_doc_i64(doc, "growth_per_repetition_bytes", r->growth_per_repetition_bytes,
		           CT_UNIT_BYTES);
		ct_doc_i64(doc, "held_at_end_bytes", r->held_at_end_bytes, CT_UNIT_BYTES);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_growing_sites(struct ct_doc *doc, const GArray *sites)
{
	ct_doc_array(doc, "growing_sites", "Call sites whose memory grows over the run");
	for (guint i = 0; i < sites->len; i++) {
		const struct ct_memory_growing_site *s =
		    &g_array_index(sites, struct ct_memory_growing_site, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "pid", s->pid, CT_UNIT_ID);
		ct_doc_string(doc, "process", s->process);
		ct_doc_u64(doc, "device", s->device, CT_UNIT_ID);
		ct_doc_string(doc, "site", s->site);
		ct_doc_string(doc, "function", s->function);
		ct_doc_string(doc, "file", s->file);
		if (s->file)
			ct_doc_u64(doc, "line", s->line, CT_UNIT_ID);
		else
			ct_doc_null(doc, "line");
		ct_doc_string(doc, "nvtx_path", s->nvtx_path);
		ct_doc_string(doc, "api", s->api);
		ct_doc_u64(doc, "allocations", s->allocations, CT_UNIT_NONE);
		ct_doc_u64(doc, "freed", s->freed, CT_UNIT_NONE);
		ct_doc_u64(doc, "reclaimed", s->reclaimed, CT_UNIT_NONE);
		ct_doc_u64(doc, "smallest_bytes", s->smallest_bytes, CT_UNIT_BYTES);
		ct_doc_u64(doc, "largest_bytes", s->largest_bytes, CT_UNIT_BYTES);
		ct_doc_i64(doc, "held_at_end_bytes", s->held_at_end_bytes, CT_UNIT_BYTES);
		ct_doc_i64(doc, "high_bytes", s->high_bytes, CT_UNIT_BYTES);
		ct_doc_u64(doc, "rises", s->rises, CT_UNIT_NONE);
		ct_doc_u64(doc, "steps", s->steps, CT_UNIT_NONE);
		ct_doc_i64(doc, "growth_per_rise_bytes", s->growth_per_rise_bytes, CT_UNIT_BYTES);
		ct_doc_i64(doc, "first_ns", s->first_ns, CT_UNIT_TIME);
		ct_doc_i64(doc, "last_rise_ns", s->last_rise_ns, CT_UNIT_TIME);
		ct_doc_double(doc, "peak_share", s->peak_share, CT_UNIT_RATIO);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_timeline(struct ct_doc *doc, const GArray *timeline)
{
	ct_doc_array(doc, "timeline", "Device memory over time");
	for (guint i = 0; i < timeline->len; i++) {
		const struct ct_memory_point *pt =
		    &g_array_index(timeline, struct ct_memory_point, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "pid", pt->pid, CT_UNIT_ID);
		ct_doc_u64(doc, "device", pt->device, CT_UNIT_ID);
		ct_doc_i64(doc, "time_ns", pt->time_ns, CT_UNIT_TIME);
		ct_doc_i64(doc, "bytes", pt->bytes, CT_UNIT_BYTES);
		ct_doc_i64(doc, "min_bytes", pt->min_bytes, CT_UNIT_BYTES);
		ct_doc_i64(doc, "max_bytes", pt->max_bytes, CT_UNIT_BYTES);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_memory(struct ct_doc *doc, const struct ct_memory_result *r)
{
	ct_doc_array(doc, "devices", "By process and device");
	for (guint i = 0; i < r->devices->len; i++)
		write_device(doc, &g_array_index(r->devices, struct ct_memory_device, i));
	ct_doc_end(doc);
	write_growing_ranges(doc, r->growing_ranges);
	write_growing_sites(doc, r->growing_sites);
	write_timeline(doc, r->timeline);
}

/* ------------------------------------------------------------ fragmentation */

/* VALUE in bytes, or null when it is not KNOWN. */
static void write_known(struct ct_doc *doc, const char *key, bool known, uint64_t value)
{
	if (known)
		ct_doc_u64(doc, key, value, CT_UNIT_BYTES);
	else
		ct_doc_null(doc, key);
}

static void write_state(struct ct_doc *doc, const struct ct_frag_state *s)
{
	ct_doc_i64(doc, "time_ns", s->time_ns, CT_UNIT_TIME);
	ct_doc_u64(doc, "live_bytes", s->live_bytes, CT_UNIT_BYTES);
	write_known(doc, "free_bytes", s->free_known, s->free_bytes);
	write_known(doc, "total_bytes", s->total_known, s->total_bytes);
	ct_doc_u64(doc, "free_seen_bytes", s->free_seen_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "largest_free_bytes", s->largest_free_bytes, CT_UNIT_BYTES);
	ct_doc_double(doc, "external_fragmentation", s->external_fragmentation, CT_UNIT_RATIO);
	ct_doc_u64(doc, "heap_span_bytes", s->heap_span_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "granularity_waste_bytes", s->granularity_waste_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "pool_reserved_bytes", s->pool_reserved_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "pool_used_bytes", s->pool_used_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "pool_live_bytes", s->pool_live_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "vmm_physical_bytes", s->vmm_physical_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "vmm_mapped_bytes", s->vmm_mapped_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "vmm_gap_bytes", s->vmm_gap_bytes, CT_UNIT_BYTES);
}

static void write_holder(struct ct_doc *doc, const struct ct_memory_holder *h)
{
	if (!h) {
		ct_doc_null(doc, "holder");
		return;
	}
	ct_doc_object(doc, "holder", "The site that held the most of the process's memory then");
	ct_doc_string(doc, "site", h->site);
	ct_doc_u64(doc, "bytes", h->bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "count", h->count, CT_UNIT_NONE);
	ct_doc_u64(doc, "process_bytes", h->process_bytes, CT_UNIT_BYTES);
	ct_doc_end(doc);
}

/* F, with the holder the memory analysis (MEMORY; NULL: not run) named at it. */
static void write_failure(struct ct_doc *doc, const struct ct_frag_failure *f,
                          const struct ct_memory_result *memory)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "time_ns", f->time_ns, CT_UNIT_TIME);
	ct_doc_i64(doc, "pid", f->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", f->process);
	ct_doc_u64(doc, "device", f->device, CT_UNIT_ID);
	ct_doc_string(doc, "kind", ct_mem_kind_label(f->kind));
	ct_doc_u64(doc, "requested_bytes", f->requested_bytes, CT_UNIT_BYTES);
	ct_doc_i64(doc, "result", f->result, CT_UNIT_ID);
	ct_doc_string(doc, "api", f->api);
	ct_doc_string(doc, "site", f->site);
	ct_doc_string(doc, "nvtx_path", f->nvtx_path);
	if (f->stack)
		write_stack(doc, f->stack);
	ct_doc_string(doc, "verdict", f->verdict);
	ct_doc_string(doc, "explanation", f->explanation);
	ct_doc_string(doc, "withheld_verdict", f->withheld_verdict);
	write_holder(doc, ct_memory_holder_at(memory, f->pid, f->device, f->time_ns));
	ct_doc_u64(doc, "live_bytes", f->live_bytes, CT_UNIT_BYTES);
	write_known(doc, "free_bytes", f->free_known, f->free_bytes);
	write_known(doc, "total_bytes", f->total_known, f->total_bytes);
	write_known(doc, "used_bytes", f->free_known, f->used_bytes);
	write_known(doc, "held_elsewhere_bytes", f->free_known, f->held_elsewhere_bytes);
	ct_doc_u64(doc, "pool_cached_bytes", f->pool_cached_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "largest_free_bytes", f->largest_free_bytes, CT_UNIT_BYTES);
	ct_doc_double(doc, "external_fragmentation", f->external_fragmentation, CT_UNIT_RATIO);
	ct_doc_u64(doc, "free_seen_bytes", f->free_seen_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "granularity_waste_bytes", f->granularity_waste_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "pool_reserved_bytes", f->pool_reserved_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "pool_used_bytes", f->pool_used_bytes, CT_UNIT_BYTES);
	ct_doc_array(doc, "holders", "The device's processes, as NVML listed them");
	for (guint i = 0; f->holders && i < f->holders->len; i++) {
		const struct ct_frag_holder *h =
		    &g_array_index(f->holders, struct ct_frag_holder, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "pid", h->pid, CT_UNIT_ID);
		ct_doc_string(doc, "process", h->process);
		write_known(doc, "bytes", h->bytes_known, h->bytes);
		ct_doc_bool(doc, "self", h->self);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
	if (f->recovered_bytes) {
		ct_doc_u64(doc, "recovered_bytes", f->recovered_bytes, CT_UNIT_BYTES);
		ct_doc_i64(doc, "recovered_time_ns", f->recovered_ns, CT_UNIT_TIME);
	} else {
		ct_doc_null(doc, "recovered_bytes");
		ct_doc_null(doc, "recovered_time_ns");
	}
	write_caveats(doc, f->caveats);
	ct_doc_end(doc);
}

static void write_frag_device(struct ct_doc *doc, const struct ct_frag_device *d)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", d->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", d->process);
	ct_doc_u64(doc, "device", d->device, CT_UNIT_ID);
	if (d->has_peak) {
		ct_doc_object(doc, "at_peak", "At the peak");
		write_state(doc, &d->at_peak);
		ct_doc_end(doc);
	} else {
		ct_doc_null(doc, "at_peak");
	}
	ct_doc_object(doc, "at_end", "At the end");
	write_state(doc, &d->at_end);
	ct_doc_end(doc);
	ct_doc_array(doc, "pools", "Memory pools");
	for (guint i = 0; i < d->pools->len; i++) {
		const struct ct_frag_pool *p = &g_array_index(d->pools, struct ct_frag_pool, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_u64(doc, "pool", p->pool, CT_UNIT_ID);
		ct_doc_u64(doc, "address", p->address, CT_UNIT_ADDRESS);
		write_i64_known(doc, "created_ns", p->created_known, p->created_ns, CT_UNIT_TIME);
		ct_doc_u64(doc, "reserved_bytes", p->reserved_bytes, CT_UNIT_BYTES);
		ct_doc_u64(doc, "used_bytes", p->used_bytes, CT_UNIT_BYTES);
		ct_doc_u64(doc, "release_threshold_bytes", p->release_threshold_bytes,
		           CT_UNIT_BYTES);
		ct_doc_bool(doc, "reserved_derived", p->reserved_derived);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
	write_caveats(doc, d->caveats);
	ct_doc_end(doc);
}

static void write_fragmentation(struct ct_doc *doc, const struct ct_fragmentation_result *r,
                                const struct ct_memory_result *memory)
{
	ct_doc_u64(doc, "failure_count", r->failure_count, CT_UNIT_NONE);
	ct_doc_array(doc, "failures", "Failed allocations");
	for (guint i = 0; i < r->failures->len; i++)
		write_failure(doc, &g_array_index(r->failures, struct ct_frag_failure, i), memory);
	ct_doc_end(doc);
	ct_doc_array(doc, "failure_sites", "Failed allocations by site");
	for (guint i = 0; i < r->failure_sites->len; i++) {
		const struct ct_frag_site *s =
		    &g_array_index(r->failure_sites, struct ct_frag_site, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_string(doc, "site", s->site);
		ct_doc_u64(doc, "count", s->count, CT_UNIT_NONE);
		ct_doc_u64(doc, "requested_bytes", s->requested_bytes, CT_UNIT_BYTES);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
	ct_doc_array(doc, "fragmentation", "Fragmentation by process and device");
	for (guint i = 0; i < r->devices->len; i++)
		write_frag_device(doc, &g_array_index(r->devices, struct ct_frag_device, i));
	ct_doc_end(doc);
}

/* ------------------------------------------------------------ section */

/* Whether NOTE's process and cause are among LIST's (a GArray of struct ct_caveat_note). */
static bool note_listed(const GArray *list, const struct ct_caveat_note *note)
{
	for (guint i = 0; list && i < list->len; i++) {
		const struct ct_caveat_note *n = &g_array_index(list, struct ct_caveat_note, i);

		if (n->pid == note->pid && !strcmp(n->cause, note->cause))
			return true;
	}
	return false;
}

static void write_note(struct ct_doc *doc, const struct ct_caveat_note *n)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_i64(doc, "pid", n->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", n->process);
	ct_doc_string(doc, "cause", n->cause);
	ct_doc_string(doc, "explanation", n->explanation);
	ct_doc_array(doc, "evidence", "Evidence");
	for (unsigned i = 0; i < n->evidence_count; i++)
		ct_doc_string(doc, NULL, n->evidence[i]);
	ct_doc_end(doc);
	ct_doc_end(doc);
}

/* Why figures are not exact: the memory analysis's notes, then the others of fragmentation's. */
static void write_notes(struct ct_doc *doc, const GArray *memory, const GArray *fragmentation)
{
	ct_doc_array(doc, "caveats", "What the figures cannot tell");
	for (guint i = 0; memory && i < memory->len; i++)
		write_note(doc, &g_array_index(memory, struct ct_caveat_note, i));
	for (guint i = 0; fragmentation && i < fragmentation->len; i++) {
		const struct ct_caveat_note *n =
		    &g_array_index(fragmentation, struct ct_caveat_note, i);

		if (!note_listed(memory, n))
			write_note(doc, n);
	}
	ct_doc_end(doc);
}

static void write_section(struct ct_doc *doc, const struct ct_result *results, size_t count)
{
	const struct ct_memory_result *memory = ct_result_of(results, count, CT_ANALYSIS_MEMORY);
	const struct ct_fragmentation_result *fragmentation =
	    ct_result_of(results, count, CT_ANALYSIS_FRAGMENTATION);
	bool memory_first = ct_result_index(results, count, CT_ANALYSIS_MEMORY) <
	                    ct_result_index(results, count, CT_ANALYSIS_FRAGMENTATION);

	ct_doc_object(doc, "memory", "Memory");
	write_notes(doc, memory ? memory->notes : NULL,
	            fragmentation ? fragmentation->notes : NULL);
	if (memory && memory_first)
		write_memory(doc, memory);
	if (fragmentation)
		write_fragmentation(doc, fragmentation, memory);
	if (memory && !memory_first)
		write_memory(doc, memory);
	ct_doc_end(doc);
}

const struct ct_section_class ct_memory_section = {
	.name = "memory",
	.write = write_section,
};
