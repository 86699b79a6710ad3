/* SPDX-License-Identifier: MIT */
/*
 * cells.c - the cells analysis (cells.h) and its section of the report,
 * `cells[]` (doc/report-schema.md).
 *
 * The pass's accountant (accounting.h), which the analysis subscribes to,
 * says when an allocation becomes live and when it stops being live,
 * whatever released it; the analysis
 * remembers, for each live allocation made during a cell, which cell (a
 * hash table by the accountant's allocation id), so that its release is
 * charged back to that cell. A release that fails (mem_free_failed, at
 * the exit of the call whose mem_free came first) gives the allocation
 * back to its cell: the owners of each thread's releases in its last call
 * are kept for that. State grows with the cells run, the live allocations
 * and the threads.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/accounting.h"
#include "analysis.h"
#include "cells.h"

/* No cell is running. */
#define NO_CELL UINT32_MAX

/* An allocation the last call of a thread released, and its owner. */
struct released {
	uint64_t id;
	guint owner; /* index of its cell + 1, 0: outside cells */
};

/* The releases of a thread's last call that released memory. */
struct thread_releases {
	uint32_t correlation_id;
	GArray *released; /* struct released */
};

/* What the analysis keeps per process (its process data in the accountant). */
struct cells_process {
	GArray *cells;    /* struct ct_cell, in the order they ran; NULL until one does */
	uint32_t running; /* index of the cell running, NO_CELL */
	struct ct_cell_memory outside;
	/* accountant's allocation id -> index of its cell + 1; of live allocations only */
	GHashTable *owner;
	/* struct ct_thread * (borrowed) -> struct thread_releases (owned) */
	GHashTable *releases;
};

struct cells {
	struct ct_context *ctx;        /* borrowed */
	const struct ct_options *opts; /* borrowed */
	struct ct_acct *acct;          /* the pass's */
	struct ct_acct_sub *sub;       /* its subscription to it */
	GStringChunk *strings;         /* the cells' first lines and errors; owned */
	int64_t end_ns;                /* of the trace */
	struct ct_cells_result result; /* owned, once computed */
};

/* ------------------------------------------------------------- state */

static void process_release(void *data, void *user)
{
	struct cells_process *p = user;

	(void)data;
	if (p->cells)
		g_array_unref(p->cells);
	g_hash_table_destroy(p->owner);
	g_hash_table_destroy(p->releases);
	g_free(p);
}

static void thread_releases_free(gpointer data)
{
	struct thread_releases *r = data;

	g_array_unref(r->released);
	g_free(r);
}

static struct cells_process *process_of(struct cells *c, struct ct_process *process)
{
	void **data = ct_acct_process_data(c->sub, process);
	struct cells_process *p = *data;

	if (!p) {
		p = g_new0(struct cells_process, 1);
		p->running = NO_CELL;
		p->owner = g_hash_table_new(g_direct_hash, g_direct_equal);
		p->releases = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
		                                    thread_releases_free);
		*data = p;
	}
	return p;
}

/* The figures of cell INDEX of P, or those outside cells for NO_CELL. */
static struct ct_cell_memory *memory_of(struct cells_process *p, uint32_t index)
{
	return index == NO_CELL ? &p->outside
	                        : &g_array_index(p->cells, struct ct_cell, index).memory;
}

/* ------------------------------------------------ the accountant's hooks */

/* vmm_map is no memory of its own: its vmm_physical carries the bytes. */
static bool charged(const struct ct_acct_alloc *a)
{
	return a->kind != CT_MEM_VMM_MAP;
}

/* Changes the figures of OWNER (cell index + 1, 0: outside) by one release of SIZE, or back. */
static void count_release(struct cells_process *p, guint owner, uint64_t size, bool undo)
{
	struct ct_cell_memory *m = memory_of(p, owner == 0 ? NO_CELL : owner - 1);

	if (undo) {
		m->frees--;
		m->freed_bytes -= size;
	} else {
		m->frees++;
		m->freed_bytes += size;
	}
}

/* The release of A (owned by OWNER) by EV, a mem_free, may fail yet: remember it. */
static void remember_release(struct cells_process *p, const struct ct_event *ev,
                             const struct ct_acct_alloc *a, guint owner)
{
	struct thread_releases *r = g_hash_table_lookup(p->releases, ev->thread);
	struct released released = { .id = a->id, .owner = owner };

	if (!r) {
		r = g_new0(struct thread_releases, 1);
		r->released = g_array_new(FALSE, FALSE, sizeof(struct released));
		g_hash_table_insert(p->releases, ev->thread, r);
	}
	if (r->correlation_id != ev->u.mem.api.correlation_id) {
		g_array_set_size(r->released, 0);
		r->correlation_id = ev->u.mem.api.correlation_id;
	}
	g_array_append_val(r->released, released);
}

/* A is live again: its release by this thread's last call failed (EV). */
static void release_failed(struct cells_process *p, const struct ct_event *ev,
                           const struct ct_acct_alloc *a)
{
	struct thread_releases *r = g_hash_table_lookup(p->releases, ev->thread);

	if (!r || r->correlation_id != ev->u.mem.api.correlation_id)
		return;
	for (guint i = 0; i < r->released->len; i++) {
		struct released *released = &g_array_index(r->released, struct released, i);

		if (released->id != a->id)
			continue;
		g_hash_table_insert(p->owner, (gpointer)(uintptr_t)a->id,
		                    GUINT_TO_POINTER(released->owner));
		count_release(p, released->owner, a->size, true);
		g_array_remove_index_fast(r->released, i);
		return;
	}
}

static void hook_added(void *data, struct ct_acct_device *dev, void *own,
                       const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	struct cells *c = data;
	struct cells_process *p;
	struct ct_cell_memory *m;

	if (ev->type == CT_EV_MEM_FREE_FAILED) {
		release_failed(process_of(c, dev->process), ev, a);
		return;
	}
	/* Only a mem_alloc the trace shows was made during a cell, or outside one. */
	if (!charged(a) || a->origin != CT_ACCT_TRACED || ev->type != CT_EV_MEM_ALLOC ||
	    ev->before_window)
		return;
	p = process_of(c, dev->process);
	m = memory_of(p, p->running);
	m->allocations++;
	m->allocated_bytes += a->size;
	g_hash_table_insert(p->owner, (gpointer)(uintptr_t)a->id,
	                    GUINT_TO_POINTER(p->running == NO_CELL ? 0u : p->running + 1));
}

static void hook_removed(void *data, struct ct_acct_device *dev, void *own,
                         const struct ct_acct_alloc *a, const struct ct_event *ev)
{
	struct cells *c = data;
	struct cells_process *p = process_of(c, dev->process);
	gpointer owner;

	if (!g_hash_table_lookup_extended(p->owner, (gpointer)(uintptr_t)a->id, NULL, &owner))
		return;
	g_hash_table_remove(p->owner, (gpointer)(uintptr_t)a->id);
	count_release(p, GPOINTER_TO_UINT(owner), a->size, false);
	if (ev->type == CT_EV_MEM_FREE)
		remember_release(p, ev, a, GPOINTER_TO_UINT(owner));
}

static const struct ct_acct_hooks hooks = {
	.process_release = process_release,
	.added = hook_added,
	.removed = hook_removed,
};

/* ------------------------------------------------------------- events */

static void on_begin(struct cells *c, const struct ct_event *ev)
{
	const struct ct_ev_cell_begin *e = &ev->u.cell_begin;
	struct cells_process *p = process_of(c, ev->process);
	struct ct_cell cell = {
		.execution_count = e->execution_count,
		.line = e->line,
		.first_line =
		    g_string_chunk_insert_len(c->strings, e->first_line ? e->first_line : "",
		                              e->first_line ? e->first_line_len : 0),
		.begin_ns = ev->time_ns,
		.end_ns = INT64_MIN,
		.status = CT_CELL_RUNNING,
	};

	if (!p->cells)
		p->cells = g_array_new(FALSE, FALSE, sizeof(struct ct_cell));
	if (p->running != NO_CELL)
		g_array_index(p->cells, struct ct_cell, p->running).end_ns = ev->time_ns;
	/* A cell run from inside another (IPython's run_cell), or one after a
	 * lost cell_end, ends the one running: what follows is its own. */
	g_array_append_val(p->cells, cell);
	p->running = p->cells->len - 1;
}

static void on_end(struct cells *c, const struct ct_event *ev)
{
	struct cells_process *p = process_of(c, ev->process);
	struct ct_cell *cell;

	if (p->running == NO_CELL)
		return;
	cell = &g_array_index(p->cells, struct ct_cell, p->running);
	/* The end of another cell than the one running (its begin was lost). */
	if (cell->execution_count != ev->u.cell_end.execution_count)
		return;
	cell->end_ns = ev->time_ns;
	cell->status = ev->u.cell_end.failed ? CT_CELL_FAILED : CT_CELL_RAN;
	if (cell->status == CT_CELL_FAILED && ev->u.cell_end.error_type_len) {
		const struct ct_ev_cell_end *e = &ev->u.cell_end;

		cell->error_type =
		    g_string_chunk_insert_len(c->strings, e->error_type, e->error_type_len);
		cell->error_message =
		    g_string_chunk_insert_len(c->strings, e->error_message ? e->error_message : "",
		                              e->error_message ? e->error_message_len : 0);
		cell->error_line = e->error_line;
	}
	p->running = NO_CELL;
}

static void cells_event(void *state, const struct ct_event *ev)
{
	struct cells *c = state;

	if (ev->type == CT_EV_CELL_BEGIN)
		on_begin(c, ev);
	else if (ev->type == CT_EV_CELL_END)
		on_end(c, ev);
}

/* ------------------------------------------------------------- result */

/* Most live bytes first, then most allocated, then in the order they ran. */
static int by_importance(const void *a, const void *b, void *data)
{
	const GArray *cells = data;
	const struct ct_cell *x = &g_array_index(cells, struct ct_cell, *(const uint32_t *)a);
	const struct ct_cell *y = &g_array_index(cells, struct ct_cell, *(const uint32_t *)b);

	if (x->memory.live_bytes != y->memory.live_bytes)
		return x->memory.live_bytes > y->memory.live_bytes ? -1 : 1;
	if (x->memory.allocated_bytes != y->memory.allocated_bytes)
		return x->memory.allocated_bytes > y->memory.allocated_bytes ? -1 : 1;
	return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

static void settle(struct ct_cell_memory *m)
{
	m->live_allocations = m->allocations - m->frees;
	m->live_bytes = m->allocated_bytes - m->freed_bytes;
}

static enum ct_analysis_status cells_result(void *state, const void **result)
{
	struct cells *c = state;

	c->result.processes = g_array_new(FALSE, TRUE, sizeof(struct ct_cells_process));
	c->result.max_rows = c->opts->max_rows;
	for (size_t i = 0; i < ct_context_process_count(c->ctx); i++) {
		struct ct_process *process = ct_context_process_at(c->ctx, i);
		struct cells_process *p = *ct_acct_process_data(c->sub, process);
		struct ct_cells_process out = { .process = process };

		if (!p || !p->cells)
			continue;
		for (guint j = 0; j < p->cells->len; j++) {
			struct ct_cell *cell = &g_array_index(p->cells, struct ct_cell, j);

			if (cell->end_ns == INT64_MIN)
				cell->end_ns = c->end_ns;
			settle(&cell->memory);
		}
		settle(&p->outside);
		out.cells = g_array_ref(p->cells);
		out.order = ct_analysis_rank(p->cells->len, by_importance, p->cells);
		out.outside = p->outside;
		out.uncertain = ct_acct_lost(c->acct, process);
		g_array_append_val(c->result.processes, out);
	}
	*result = &c->result;
	return CT_ANALYSIS_OK;
}

/* ------------------------------------------------------------- section */

static const char *status_name(enum ct_cell_status status)
{
	switch (status) {
	case CT_CELL_RAN:
		return "ran";
	case CT_CELL_FAILED:
		return "failed";
	case CT_CELL_RUNNING:
		return "running";
	}
	return "unknown";
}

static void write_memory(struct ct_doc *doc, const struct ct_cell_memory *m)
{
	ct_doc_u64(doc, "allocations", m->allocations, CT_UNIT_NONE);
	ct_doc_u64(doc, "allocated_bytes", m->allocated_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "freed_bytes", m->freed_bytes, CT_UNIT_BYTES);
	ct_doc_u64(doc, "live_allocations", m->live_allocations, CT_UNIT_NONE);
	ct_doc_u64(doc, "live_bytes", m->live_bytes, CT_UNIT_BYTES);
}

const char *ct_cell_site(const struct ct_cell *cell, char *buf, size_t len)
{
	if (cell->error_type && cell->error_line)
		snprintf(buf, len, "In [%" PRIu64 "] line %" PRIu32, cell->execution_count,
		         cell->error_line);
	else
		snprintf(buf, len, "In [%" PRIu64 "]", cell->execution_count);
	return buf;
}

/* Where the cell ran, as the findings name it: its process and its site. */
static void write_site(struct ct_doc *doc, const struct ct_process *process,
                       const struct ct_cell *cell)
{
	char site[CT_CELL_SITE_LEN];

	ct_doc_i64(doc, "pid", process->pid, CT_UNIT_ID);
	ct_doc_string(doc, "process", process->procname);
	ct_doc_string(doc, "site", ct_cell_site(cell, site, sizeof(site)));
	ct_doc_i64(doc, "time_ns", cell->begin_ns, CT_UNIT_TIME);
}

static void write_process(struct ct_doc *doc, const struct ct_cells_process *p, size_t max_rows)
{
	ct_doc_object(doc, NULL, NULL);
	ct_doc_u64(doc, "pid", (uint64_t)p->process->pid, CT_UNIT_ID);
	ct_doc_string(doc, "procname", p->process->procname);
	ct_doc_u64(doc, "cell_count", p->cells->len, CT_UNIT_NONE);
	ct_doc_bool(doc, "uncertain", p->uncertain);
	ct_doc_array(doc, "cells", "Memory charged to cells, most held first");
	for (guint i = 0; i < p->cells->len && i < max_rows; i++) {
		const struct ct_cell *cell = &g_array_index(p->cells, struct ct_cell, p->order[i]);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_u64(doc, "cell", cell->execution_count, CT_UNIT_ID);
		write_site(doc, p->process, cell);
		ct_doc_u64(doc, "line", cell->line, CT_UNIT_ID);
		ct_doc_string(doc, "first_line", cell->first_line);
		ct_doc_string(doc, "status", status_name(cell->status));
		ct_doc_string(doc, "error_type", cell->error_type);
		ct_doc_string(doc, "error_message", cell->error_message);
		if (cell->error_type && cell->error_line)
			ct_doc_u64(doc, "error_line", cell->error_line, CT_UNIT_ID);
		else
			ct_doc_null(doc, "error_line");
		write_memory(doc, &cell->memory);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
	ct_doc_object(doc, "outside_cells", "Allocated while no cell ran");
	write_memory(doc, &p->outside);
	ct_doc_end(doc);
	ct_doc_end(doc);
}

static void write_section(struct ct_doc *doc, const struct ct_result *results, size_t count)
{
	size_t i = ct_result_index(results, count, CT_ANALYSIS_CELLS);
	const struct ct_cells_result *r;

	if (i == count)
		return;
	r = results[i].result;
	ct_doc_array(doc, "cells", "Notebook cells");
	for (guint j = 0; j < r->processes->len; j++)
		write_process(doc, &g_array_index(r->processes, struct ct_cells_process, j),
		              r->max_rows);
	ct_doc_end(doc);
}

const struct ct_section_class ct_cells_section = {
	.name = "cells",
	.write = write_section,
};

/* --------------------------------------------------------- lifecycle */

static enum ct_analysis_status cells_create(struct ct_context *ctx, const struct ct_options *opts,
                                            void **state)
{
	struct cells *c = g_new0(struct cells, 1);

	*state = c;
	c->ctx = ctx;
	c->opts = opts;
	c->strings = g_string_chunk_new(1024);
	c->acct = ct_context_accounting(ctx);
	c->sub = ct_acct_subscribe(c->acct, NULL, &hooks, c);
	return CT_ANALYSIS_OK;
}

static enum ct_analysis_status cells_finish(void *state, int64_t end_ns)
{
	struct cells *c = state;

	c->end_ns = end_ns;
	return CT_ANALYSIS_OK;
}

static void cells_destroy(void *state)
{
	struct cells *c = state;

	if (!c)
		return;
	for (guint i = 0; c->result.processes && i < c->result.processes->len; i++) {
		struct ct_cells_process *p =
		    &g_array_index(c->result.processes, struct ct_cells_process, i);

		g_array_unref(p->cells);
		g_free(p->order);
	}
	if (c->result.processes)
		g_array_unref(c->result.processes);
	ct_acct_unsubscribe(c->sub);
	g_string_chunk_free(c->strings);
	g_free(c);
}

const struct ct_analysis_class ct_cells_analysis = {
	.name = "cells",
	.id = CT_ANALYSIS_CELLS,
	.section = &ct_cells_section,
	.wants = CT_EV_BIT(CT_EV_CELL_BEGIN) | CT_EV_BIT(CT_EV_CELL_END),
	.uses = CT_SHARED_ACCOUNTING,
	.create = cells_create,
	.event = cells_event,
	.finish = cells_finish,
	.result = cells_result,
	.destroy = cells_destroy,
};
