/* SPDX-License-Identifier: MIT */
/*
 * cells.h - the cells analysis: memory charged to the cells a notebook
 * kernel ran (cell_begin and cell_end, doc/events.md). An allocation made
 * in a process while one of its cells ran, by any of its threads, is that
 * cell's; its release, whenever and by whoever it comes, counts as freed
 * for that cell, so that allocated = freed + live for each cell.
 * Allocations made while no cell ran (the kernel's start, threads working
 * between cells) are counted apart.
 *
 * Kinds: every kind but vmm_map, which is no memory of its own (its
 * vmm_physical carries the bytes), pinned host memory included, as the
 * memory analysis charges NVTX ranges.
 */
#ifndef CUDATRACE_ANALYZERS_CELLS_H
#define CUDATRACE_ANALYZERS_CELLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "model/context.h"

/* What a cell (or the time outside cells) allocated, freed and left live. */
struct ct_cell_memory {
	uint64_t allocations;
	uint64_t allocated_bytes;
	uint64_t frees; /* of those allocations */
	uint64_t freed_bytes;
	uint64_t live_allocations; /* at the end of the trace */
	uint64_t live_bytes;
};

enum ct_cell_status {
	CT_CELL_RAN,     /* its cell_end came */
	CT_CELL_FAILED,  /* ... saying it raised an exception */
	CT_CELL_RUNNING, /* no cell_end: it ran when the trace ended (the kernel died in it),
	                  * or its cell_end was lost and the next cell_begin ended it */
};

/* One run of a cell. */
struct ct_cell {
	uint64_t execution_count; /* In [N] */
	uint32_t line;            /* of first_line in the cell, from 1; 0 if none */
	const char *first_line;   /* owned by the result's strings */
	/* end_ns of a cell without cell_end: the next cell's begin, else the trace's end */
	int64_t begin_ns, end_ns;
	enum ct_cell_status status;
	/* CT_CELL_FAILED: the exception it raised, when the kernel said (else NULL, 0) */
	const char *error_type;    /* its qualified name, owned by the result's strings */
	const char *error_message; /* its text, cut; idem */
	uint32_t error_line;       /* where in the cell it went through last; 0: unknown */
	struct ct_cell_memory memory;
};

/* The cells of one process, which ran at least one. */
struct ct_cells_process {
	struct ct_process *process;    /* borrowed from the context */
	GArray *cells;                 /* struct ct_cell, in the order they ran */
	uint32_t *order;               /* indices into cells: most live bytes first */
	struct ct_cell_memory outside; /* allocations made while no cell ran */
	/* LTTng lost events of the process: a lost allocation, free or cell event
	 * may change any figure. */
	bool uncertain;
};

struct ct_cells_result {
	GArray *processes; /* struct ct_cells_process, in order of first event */
	size_t max_rows;   /* cells listed per process in the report (--max-rows) */
};

/* Room for a cell's site, "In [N] line L". */
#define CT_CELL_SITE_LEN 64

/*
 * Where CELL ran, as the report names it: "In [N]", with the line its
 * error went through last when it raised one ("In [N] line L"), in BUF
 * (LEN bytes, CT_CELL_SITE_LEN will do). Returns BUF.
 */
const char *ct_cell_site(const struct ct_cell *cell, char *buf, size_t len);

#endif
