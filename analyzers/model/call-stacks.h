/* SPDX-License-Identifier: MIT */
/*
 * call-stacks.h - the call stacks of a trace (call_stack events) and the
 * objects each process had loaded (lttng-ust's statedump), by process;
 * each stack named offline (symbolizer.h) when a report asks for it, and
 * its site found: the first frame of the program's own code.
 *
 * Frames inside CUDA, CUPTI, the tracer, the C library and its loader,
 * and the allocators of the well-known frameworks are folded: the site is
 * the first frame, innermost first, of an object not among them. The
 * whole stack stays available (JSON reports write it). A Python
 * program's Python frames take the place of the interpreter's, folded:
 * they go before its innermost frame, and the site of a CUDA call made
 * from Python is the Python line that made it, unless it is in one of
 * the well-known frameworks' packages, whose Python frames are folded
 * too. The native frames between that line and CUDA (an extension
 * module's: cuda-bindings, numba, torch, JAX; ctypes) are folded under
 * it: the Python line is the code that asked. What a thread without
 * Python frames does for one that waits for it (PyTorch's autograd
 * engine, for backward()) gets a stack of both (ct_call_stacks_compose).
 * C++ functions are named demangled (common/demangle.h).
 *
 * Each process's stacks, cells and objects are kept in its struct
 * ct_process (model/context.h), which owns them: lttng-ust's statedump of
 * a process, before its first cudatrace event, goes to the process the
 * context creates unlisted for it.
 */
#ifndef CUDATRACE_ANALYZERS_CALL_STACKS_H
#define CUDATRACE_ANALYZERS_CALL_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "symbolizer.h"

struct ct_call_stacks;
struct ct_process;
/* A process's stacks, cells and objects; its struct ct_process owns them. */
struct ct_process_stacks;

/* One frame, named. Strings belong to the call stacks; NULL when unknown. */
struct ct_stack_frame {
	uint64_t address;
	struct ct_symbol symbol;
	bool folded;        /* in CUDA, the tracer, the C library or a framework's allocator */
	bool inlined;       /* a function inlined into the next frame, at the same address */
	bool python;        /* a Python frame: function, file and line, no address or object */
	uint64_t cell;      /* a Python frame of a notebook cell's code: its In [N]; 0: none */
	uint32_t cell_line; /* and its line in the cell, as the notebook shows it */
};

/* A stack, named: its frames innermost first (an address where functions
 * were inlined gives a frame to each), and the index of its site. */
struct ct_stack {
	size_t count;
	struct ct_stack_frame *frames;
	/* The first frame not folded whose object is known; count when none. */
	size_t site;
};

struct ct_call_stacks *ct_call_stacks_create(void);
/* Where to look first for the objects' files (symbolizer.h): DEBUG_DIRS,
 * copied; before the first event. */
void ct_call_stacks_set_debug_dirs(struct ct_call_stacks *cs, const char *debug_dirs);
/* Frees what the call stacks hold themselves (not the processes'); NULL is fine. */
void ct_call_stacks_destroy(struct ct_call_stacks *cs);
/* For the process that owns PS; NULL is fine. */
void ct_process_stacks_free(struct ct_process_stacks *ps);

/* A call_stack event of PROCESS: its addresses, and its Python frames
 * PYTHON ("LINE\tFUNCTION\tFILE\n" each; NULL or "" for none). */
void ct_call_stacks_add(struct ct_call_stacks *cs, struct ct_process *process, uint64_t stack_id,
                        const uint64_t *frames, size_t count, const char *python);

/* What a stack's Python frames say of the thread that made it. */
enum ct_stack_python {
	CT_STACK_UNKNOWN,  /* the trace holds no such stack */
	CT_STACK_NATIVE,   /* no Python frames: native code alone */
	CT_STACK_PYTHON,   /* Python frames */
	CT_STACK_AUTOGRAD, /* Python frames inside PyTorch's backward, which waits for
	                      the autograd engine's threads */
};

/* What stack STACK_ID of PROCESS says of its thread (enum ct_stack_python). */
enum ct_stack_python ct_call_stacks_python(const struct ct_process *process, uint64_t stack_id);

/*
 * A stack of PROCESS made of two: the native frames of stack NATIVE_ID,
 * from a thread that runs no Python (PyTorch's autograd threads), then
 * the Python frames of stack PYTHON_ID, of the thread it worked for; so
 * that the site of what the first did is the Python line that asked for
 * it. Returns its id (the same for the same two), 0 when either is not in
 * the trace or PYTHON_ID has no Python frames.
 */
uint64_t ct_call_stacks_compose(struct ct_call_stacks *cs, struct ct_process *process,
                                uint64_t native_id, uint64_t python_id);

/*
 * A notebook cell of PROCESS (cell_begin): the Python
 * frames in CODE_FILE, the file IPython compiled it under, are In
 * [EXECUTION_COUNT] (the last cell run with that code, when the same code
 * ran twice). FIRST_LINE is the line of the cell, from 1, of its first
 * line that is not blank: IPython compiles the cell without the blank
 * lines before it, so a frame's line L is the cell's line L + FIRST_LINE
 * - 1. An empty or NULL CODE_FILE is ignored.
 */
void ct_call_stacks_add_cell(struct ct_call_stacks *cs, struct ct_process *process,
                             const char *code_file, uint64_t execution_count, uint32_t first_line);

/* lttng_ust_statedump:bin_info and build_id of PROCESS. */
void ct_call_stacks_add_object(struct ct_call_stacks *cs, struct ct_process *process, uint64_t base,
                               uint64_t size, const char *path);
void ct_call_stacks_set_build_id(struct ct_call_stacks *cs, struct ct_process *process,
                                 uint64_t base, const uint8_t *id, size_t len);

/* Stack STACK_ID of PROCESS, named (the name is kept in PROCESS's
 * stacks); NULL when the trace holds no such call_stack event (or
 * STACK_ID is 0). */
const struct ct_stack *ct_call_stacks_get(const struct ct_process *process, uint64_t stack_id);

/* STACK's frames, a GArray of struct ct_stack_frame whose strings are
 * copied into STRINGS, for a result that outlives the call stacks; NULL
 * when STACK is NULL. */
GArray *ct_stack_copy(const struct ct_stack *stack, GStringChunk *strings);

/* A Python line as sites are named: "train.py:12 in step" (the file's base name). */
char *ct_python_site_format(const char *file, unsigned line, const char *function, char *buf,
                            size_t len);

/*
 * The site of STACK for people, into BUF (LEN bytes): "leak_here
 * (stack-alloc.c:35)", "leak_here (stack-alloc)" without line
 * information, "stack-alloc+0x1234" without a symbol, "train.py:42 in
 * step" for a Python frame, "In [3] line 2" for a notebook cell's code
 * ("In [3] line 5 in f" within a function it defines). NULL when STACK
 * is NULL or has no site.
 */
char *ct_stack_site_format(const struct ct_stack *stack, char *buf, size_t len);

#endif
