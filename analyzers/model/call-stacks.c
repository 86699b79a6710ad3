/* SPDX-License-Identifier: MIT */
/*
 * call-stacks.c - call stacks by process, named and folded (see
 * call-stacks.h).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "call-stacks.h"
#include "context.h"
#include "common/demangle.h"
#include "contract/mix64.h"

/*
 * The objects whose frames are folded, by the start of their file name:
 * the CUDA driver, runtime and libraries, CUPTI, the tracer and its
 * unwinder and tracing library, the C library and its loader (the frames
 * below main), the allocators of PyTorch, TensorFlow, JAX/XLA and
 * CuPy, which call cudaMalloc on behalf of the code that asked them for
 * memory, and the Python interpreter with ctypes and libffi, whose
 * frames say nothing of the Python code that runs: the Python frames the
 * call_stack event carries stand in their place.
 */
static const char *const folded_objects[] = {
	"libcuda.so",
	"libcudart.so",
	"libcupti.so",
	"libcudatrace.so",
	"libnvidia-",
	"libcublas",
	"libcudnn",
	"libcufft",
	"libcusparse",
	"libcurand",
	"libnccl",
	"libnvrtc",
	"libunwind.so",
	"libpython",
	"python3",
	"_ctypes.",
	"libffi.so",
	"liblttng-ust",
	"libc.so",
	"ld-linux",
	"libstdc++.so",
	"libgcc_s.so",
	"libc10_cuda.so",
	"libc10.so",
	"libtorch_cuda.so",
	"libtorch_cpu.so",
	"libtensorflow_framework.so",
	"_pywrap_tensorflow_internal.so",
	"libxla",
	"xla_extension.so",
	"librmm",
	"cupy_backends",
};

/*
 * The functions nvcc and CUDA's headers compile into the program itself,
 * by the start of their name as read (demangled): the launch stubs nvcc
 * writes for each kernel (__device_stub__NAME, which calls
 * __cudaLaunchKernel or, before CUDA 12.8, cudaLaunchKernel<char>), the
 * module registration, and the templates of cuda_runtime.h
 * (cudaMalloc<T>, cudaLaunchKernel<T>, ...), named with their return type.
 * They call CUDA for the code that called them.
 */
static const char *const folded_functions[] = {
	"__device_stub__", "__cudaLaunch",   "__cudaRegister",   "__sti____cudaRegisterAll",
	"__nv_",           "cudaError cuda", "cudaError_t cuda",
};

/* The same by their source file, when the program has debugging information. */
static const char *const folded_sources[] = {
	".cudafe1.stub.c",
	"cuda_runtime.h",
	"crt/host_runtime.h",
};

/* The objects of the Python interpreter: its frames' Python frames go
 * before the innermost of them. */
static const char *const interpreter_objects[] = {
	"libpython",
	"python3",
};

/* The Python packages whose frames are folded, by a part of their path:
 * the frameworks that allocate for the code that calls them, and the
 * bindings that call CUDA for it (cuda-bindings and cuda-core, numba,
 * PyCUDA). */
static const char *const folded_packages[] = {
	"-packages/torch/",         "-packages/tensorflow/", "-packages/keras/",
	"-packages/jax/",           "-packages/jaxlib/",     "-packages/cupy/",
	"-packages/cupy_backends/", "-packages/rmm/",        "-packages/numba/",
	"-packages/numba_cuda/",    "-packages/cuda/",       "-packages/pycuda/",
};

struct raw_stack {
	size_t count;
	uint64_t *frames;       /* owned */
	char *python;           /* owned; NULL: no Python frames */
	struct ct_stack *named; /* owned; NULL until asked for */
	enum ct_stack_python python_kind;
};

/* A notebook cell, as its code's Python frames name it. */
struct cell {
	uint64_t execution_count; /* In [N] */
	uint32_t first_line;      /* the cell's line of the code's line 1 */
};

struct ct_process_stacks {
	GHashTable *stacks; /* uint64_t stack id (owned) -> struct raw_stack (owned) */
	struct ct_symbolizer *symbolizer;
	GStringChunk *strings; /* the named frames' strings */
	/* a notebook cell's code file (owned) -> struct cell (owned) */
	GHashTable *cells;
	/*
	 * Python frames called from more than one place (helper_key, owned),
	 * as of the first HELPERS_FOR stacks: a shared helper is no site.
	 */
	GHashTable *helpers;
	guint helpers_for;
};

struct ct_call_stacks {
	char *debug_dirs; /* owned; NULL: none */
};

static void raw_free(gpointer p)
{
	struct raw_stack *r = p;

	if (r->named)
		g_free(r->named->frames);
	g_free(r->named);
	g_free(r->frames);
	g_free(r->python);
	g_free(r);
}

void ct_process_stacks_free(struct ct_process_stacks *ps)
{
	if (!ps)
		return;
	g_hash_table_destroy(ps->stacks);
	ct_symbolizer_destroy(ps->symbolizer);
	g_string_chunk_free(ps->strings);
	g_hash_table_destroy(ps->cells);
	if (ps->helpers)
		g_hash_table_destroy(ps->helpers);
	g_free(ps);
}

struct ct_call_stacks *ct_call_stacks_create(void)
{
	return g_new0(struct ct_call_stacks, 1);
}

void ct_call_stacks_set_debug_dirs(struct ct_call_stacks *cs, const char *debug_dirs)
{
	g_free(cs->debug_dirs);
	cs->debug_dirs = g_strdup(debug_dirs);
}

void ct_call_stacks_destroy(struct ct_call_stacks *cs)
{
	if (!cs)
		return;
	g_free(cs->debug_dirs);
	g_free(cs);
}

/* PROCESS's stacks, created on first use. */
static struct ct_process_stacks *stacks_of(struct ct_call_stacks *cs, struct ct_process *process)
{
	struct ct_process_stacks *ps = process->stacks;

	if (ps)
		return ps;
	ps = g_new0(struct ct_process_stacks, 1);
	ps->stacks = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, raw_free);
	ps->symbolizer = ct_symbolizer_create(cs->debug_dirs);
	ps->strings = g_string_chunk_new(4096);
	ps->cells = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	process->stacks = ps;
	return ps;
}

void ct_call_stacks_add_cell(struct ct_call_stacks *cs, struct ct_process *process,
                             const char *code_file, uint64_t execution_count, uint32_t first_line)
{
	struct cell *c;

	/* In [0] is no cell */
	if (!code_file || !*code_file || !execution_count)
		return;
	c = g_new(struct cell, 1);
	c->execution_count = execution_count;
	c->first_line = first_line ? first_line : 1;
	g_hash_table_replace(stacks_of(cs, process)->cells, g_strdup(code_file), c);
}

static gchar **python_frame_parse(const char *l, uint32_t *line);

/* Whether S ends with SUFFIX. */
static bool ends_with(const char *s, const char *suffix)
{
	size_t len = strlen(s), n = strlen(suffix);

	return len >= n && !strcmp(s + len - n, suffix);
}

/*
 * Whether a Python frame, FUNCTION in FILE, runs PyTorch's autograd
 * engine: torch.autograd.backward or grad (Tensor.backward calls the
 * first), or torch/autograd/graph.py's _engine_run_backward, which hands
 * the graph to the engine's threads and waits for them.
 */
static bool is_autograd_frame(const char *function, const char *file)
{
	if (ends_with(file, "/torch/autograd/__init__.py"))
		return !strcmp(function, "backward") || !strcmp(function, "grad");
	return ends_with(file, "/torch/autograd/graph.py") &&
	       !strcmp(function, "_engine_run_backward");
}

/* What the Python frames PYTHON (NULL: none) say of their thread. */
static enum ct_stack_python python_kind_of(const char *python)
{
	enum ct_stack_python kind = CT_STACK_NATIVE;
	gchar **lines = python ? g_strsplit(python, "\n", -1) : NULL;

	for (gchar **l = lines; l && *l && **l && kind != CT_STACK_AUTOGRAD; l++) {
		uint32_t line;
		gchar **parts = python_frame_parse(*l, &line);

		if (!parts)
			break;
		kind = is_autograd_frame(parts[1], parts[2]) ? CT_STACK_AUTOGRAD : CT_STACK_PYTHON;
		g_strfreev(parts);
	}
	g_strfreev(lines);
	return kind;
}

/* Stack STACK_ID of PS, as the trace gave it (FRAMES, COUNT, PYTHON). */
static void raw_add(struct ct_process_stacks *ps, uint64_t stack_id, const uint64_t *frames,
                    size_t count, const char *python)
{
	struct raw_stack *r = g_new0(struct raw_stack, 1);

	r->count = count;
	r->frames = g_memdup2(frames, count * sizeof(*frames));
	r->python = python && *python ? g_strdup(python) : NULL;
	r->python_kind = python_kind_of(r->python);
	g_hash_table_insert(ps->stacks, g_memdup2(&stack_id, sizeof(stack_id)), r);
}

void ct_call_stacks_add(struct ct_call_stacks *cs, struct ct_process *process, uint64_t stack_id,
                        const uint64_t *frames, size_t count, const char *python)
{
	struct ct_process_stacks *ps = stacks_of(cs, process);

	/* a stack emitted again (a session that started later) is the same */
	if (!stack_id || g_hash_table_contains(ps->stacks, &stack_id))
		return;
	raw_add(ps, stack_id, frames, count, python);
}

enum ct_stack_python ct_call_stacks_python(const struct ct_process *process, uint64_t stack_id)
{
	const struct raw_stack *r = process->stacks && stack_id
	                                ? g_hash_table_lookup(process->stacks->stacks, &stack_id)
	                                : NULL;

	return r ? r->python_kind : CT_STACK_UNKNOWN;
}

uint64_t ct_call_stacks_compose(struct ct_call_stacks *cs, struct ct_process *process,
                                uint64_t native_id, uint64_t python_id)
{
	struct ct_process_stacks *ps = stacks_of(cs, process);
	const struct raw_stack *native =
	    native_id ? g_hash_table_lookup(ps->stacks, &native_id) : NULL;
	const struct raw_stack *python =
	    python_id ? g_hash_table_lookup(ps->stacks, &python_id) : NULL;
	/* the tracer's ids hash a stack's frames; a composed one hashes the two */
	uint64_t id = ct_mix64(native_id ^ ct_mix64(python_id ^ 0x636f6d706f736564ULL));

	if (!native || !python || !python->python)
		return 0;
	if (!id)
		id = 1;
	if (!g_hash_table_contains(ps->stacks, &id))
		raw_add(ps, id, native->frames, native->count, python->python);
	return id;
}

void ct_call_stacks_add_object(struct ct_call_stacks *cs, struct ct_process *process, uint64_t base,
                               uint64_t size, const char *path)
{
	ct_symbolizer_add_object(stacks_of(cs, process)->symbolizer, base, size, path);
}

void ct_call_stacks_set_build_id(struct ct_call_stacks *cs, struct ct_process *process,
                                 uint64_t base, const uint8_t *id, size_t len)
{
	ct_symbolizer_set_build_id(stacks_of(cs, process)->symbolizer, base, id, len);
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

static bool starts_with_any(const char *name, const char *const *prefixes, size_t n)
{
	if (!name)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static bool is_folded(const char *object)
{
	return starts_with_any(base_name(object), folded_objects, G_N_ELEMENTS(folded_objects));
}

static bool ends_with_any(const char *name, const char *const *suffixes, size_t n)
{
	for (size_t i = 0; name && i < n; i++)
		if (g_str_has_suffix(name, suffixes[i]))
			return true;
	return false;
}

/* Whether SYMBOL, of the program or a library of its own, is CUDA's code compiled into it. */
static bool is_cuda_compiled_in(const struct ct_symbol *symbol)
{
	return starts_with_any(symbol->function, folded_functions,
	                       G_N_ELEMENTS(folded_functions)) ||
	       ends_with_any(symbol->file, folded_sources, G_N_ELEMENTS(folded_sources));
}

static bool is_launch_stub(const struct ct_symbol *symbol)
{
	return symbol->function && !strncmp(symbol->function, "__device_stub__", 15);
}

static bool is_interpreter(const char *object)
{
	return starts_with_any(base_name(object), interpreter_objects,
	                       G_N_ELEMENTS(interpreter_objects));
}

static bool is_folded_package(const char *file)
{
	for (size_t i = 0; i < G_N_ELEMENTS(folded_packages); i++)
		if (strstr(file, folded_packages[i]))
			return true;
	return false;
}

static const char *copy_string(GStringChunk *strings, const char *s)
{
	return s ? g_string_chunk_insert_const(strings, s) : NULL;
}

/* The most functions inlined into one another at one address that are named. */
#define INLINE_MAX 16

/*
 * One line of a call_stack's Python frames, "LINE\tFUNCTION\tFILE" (as
 * libtrace/python-frames.h writes them): its three parts, freed with
 * g_strfreev, and its line in *LINE; NULL when L is not such a line.
 */
static gchar **python_frame_parse(const char *l, uint32_t *line)
{
	gchar **parts = g_strsplit(l, "\t", 3);
	char *end = NULL;
	unsigned long n = parts[0] ? strtoul(parts[0], &end, 10) : 0;

	if (g_strv_length(parts) != 3 || end == parts[0] || *end || n > UINT32_MAX) {
		g_strfreev(parts);
		return NULL;
	}
	*line = (uint32_t)n;
	return parts;
}

/* What tells a Python frame from another: its line, function and file. */
static char *helper_key(uint32_t line, const char *function, const char *file)
{
	return g_strdup_printf("%" PRIu32 "\t%s\t%s", line, function ? function : "",
	                       file ? file : "");
}

/*
 * The Python frames of the process's stacks that are called from more
 * than one place: the frame just outside them (or none) differs between
 * two stacks. Such a frame is a helper the program shares (a wrapper of
 * cudaMalloc, a notebook's alloc()), which would merge different call
 * paths into one site.
 */
static void find_helpers(struct ct_process_stacks *ps)
{
	GHashTable *callers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	GHashTableIter it;
	gpointer value;

	if (ps->helpers)
		g_hash_table_destroy(ps->helpers);
	ps->helpers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_hash_table_iter_init(&it, ps->stacks);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct raw_stack *r = value;
		gchar **lines = r->python ? g_strsplit(r->python, "\n", -1) : NULL;
		char *inner = NULL;

		for (gchar **l = lines; l && *l; l++) {
			uint32_t line = 0;
			gchar **parts = **l ? python_frame_parse(*l, &line) : NULL;
			char *key = parts ? helper_key(line, parts[1], parts[2]) : g_strdup("");

			g_strfreev(parts);
			if (inner) {
				const char *seen = g_hash_table_lookup(callers, inner);

				if (!seen)
					g_hash_table_insert(callers, g_strdup(inner),
					                    g_strdup(key));
				else if (strcmp(seen, key))
					g_hash_table_add(ps->helpers, g_strdup(inner));
			}
			g_free(inner);
			inner = *key ? key : (g_free(key), NULL);
			if (!inner)
				break;
		}
		g_free(inner);
		g_strfreev(lines);
	}
	g_hash_table_destroy(callers);
	ps->helpers_for = g_hash_table_size(ps->stacks);
}

/* Whether F, a Python frame of process PS, is a shared helper (find_helpers). */
static bool is_helper(const struct ct_process_stacks *ps, const struct ct_stack_frame *f)
{
	char *key = helper_key(f->symbol.line, f->symbol.function, f->symbol.file);
	bool shared = g_hash_table_contains(ps->helpers, key);

	g_free(key);
	return shared;
}

/*
 * The Python frames PYTHON ("LINE\tFUNCTION\tFILE\n" each) appended to
 * FRAMES; a line that is not one of them ends them.
 */
static void add_python_frames(struct ct_process_stacks *ps, GArray *frames, const char *python)
{
	gchar **lines = g_strsplit(python, "\n", -1);

	for (gchar **l = lines; *l && **l; l++) {
		uint32_t line = 0;
		gchar **parts = python_frame_parse(*l, &line);
		struct ct_stack_frame f = { .python = true };
		const struct cell *cell;

		if (!parts)
			break;
		f.symbol.function = copy_string(ps->strings, parts[1]);
		f.symbol.file = copy_string(ps->strings, parts[2]);
		f.symbol.line = line;
		cell = g_hash_table_lookup(ps->cells, parts[2]);
		if (cell && line <= UINT32_MAX - cell->first_line) {
			f.cell = cell->execution_count;
			f.cell_line = line + cell->first_line - 1;
		}
		f.folded = is_folded_package(parts[2]);
		g_array_append_val(frames, f);
		g_strfreev(parts);
	}
	g_strfreev(lines);
}

/*
 * The site of a stack with Python frames: its innermost Python frame
 * outside the frameworks' packages that is not a helper called from
 * several places (find_helpers): so that different call paths through a
 * shared wrapper stay apart, the site is where they differ; when every
 * such frame is a helper, the innermost. The native frames inside it (an
 * extension module's: cuda-bindings, numba, torch, JAX; ctypes) are
 * folded under that Python line, which is the code that asked. COUNT
 * when there is none.
 */
static size_t python_site(const struct ct_process_stacks *ps, struct ct_stack *st)
{
	size_t site = st->count, first = st->count;

	for (size_t i = 0; i < st->count && site == st->count; i++) {
		const struct ct_stack_frame *f = &st->frames[i];

		if (!f->python || f->folded)
			continue;
		if (first == st->count)
			first = i;
		if (!is_helper(ps, f))
			site = i;
	}
	if (site == st->count)
		site = first;
	for (size_t i = 0; i < site && site < st->count; i++)
		if (!st->frames[i].python)
			st->frames[i].folded = true;
	return site;
}

/* The site of a native stack: its innermost frame not folded whose object is known. */
static size_t native_site(const struct ct_stack *st)
{
	for (size_t i = 0; i < st->count; i++) {
		const struct ct_stack_frame *f = &st->frames[i];

		/* a frame is known when its object is, or it is Python's */
		if (!f->folded && (f->python || f->symbol.object))
			return i;
	}
	return st->count;
}

/* A native frame's function as people read it: C++ names demangled. */
static const char *function_name(GStringChunk *strings, const char *name)
{
	char *demangled = ct_demangle(name);
	const char *copy = copy_string(strings, demangled ? demangled : name);

	free(demangled);
	return copy;
}

/*
 * What frame address ADDRESS is, into SYMS (ct_symbolizer_lookup). A
 * frame of a folded object (CUDA's libraries, the interpreter, the C
 * library) is named by its symbol table alone: it is never the site, and
 * its debug information, when installed, is megabytes to read (the C
 * library's took a quarter of a billion instructions, for two frames).
 */
static size_t name_frame(struct ct_process_stacks *ps, uint64_t address, struct ct_symbol *syms)
{
	const char *object = ct_symbolizer_object(ps->symbolizer, address, true);

	if (!object)
		return 0;
	if (is_folded(object))
		return ct_symbolizer_lookup_symbol(ps->symbolizer, address, true, &syms[0]);
	return ct_symbolizer_lookup(ps->symbolizer, address, true, syms, INLINE_MAX);
}

static struct ct_stack *name_stack(struct ct_process_stacks *ps, const struct raw_stack *r)
{
	GArray *frames =
	    g_array_sized_new(FALSE, TRUE, sizeof(struct ct_stack_frame), (guint)r->count);
	struct ct_stack *st = g_new0(struct ct_stack, 1);
	bool python_due = r->python != NULL;
	/* nvcc's stub is called by a function of the kernel's name it writes too */
	bool after_stub = false;

	for (size_t i = 0; i < r->count; i++) {
		struct ct_symbol syms[INLINE_MAX];
		size_t n = name_frame(ps, r->frames[i], syms);
		bool known = n > 0;

		if (!known) {
			syms[0] = (struct ct_symbol){ 0 };
			n = 1;
		}
		for (size_t k = 0; k < n; k++) {
			struct ct_stack_frame f = {
				.address = r->frames[i],
				.symbol = syms[k],
				.folded = known && is_folded(syms[k].object),
				.inlined = k + 1 < n,
			};

			f.symbol.object = copy_string(ps->strings, f.symbol.object);
			f.symbol.function = function_name(ps->strings, f.symbol.function);
			f.symbol.file = copy_string(ps->strings, f.symbol.file);
			if (known && !f.folded) {
				f.folded = is_cuda_compiled_in(&f.symbol) || after_stub;
				after_stub = is_launch_stub(&f.symbol);
			}
			if (python_due && known && is_interpreter(f.symbol.object)) {
				add_python_frames(ps, frames, r->python);
				python_due = false;
			}
			g_array_append_val(frames, f);
		}
	}
	/* the interpreter's frames are beyond the depth recorded, or unnamed */
	if (python_due)
		add_python_frames(ps, frames, r->python);
	st->count = frames->len;
	st->frames = (struct ct_stack_frame *)g_array_free(frames, FALSE);
	st->site = python_site(ps, st);
	if (st->site == st->count)
		st->site = native_site(st);
	return st;
}

const struct ct_stack *ct_call_stacks_get(const struct ct_process *process, uint64_t stack_id)
{
	struct ct_process_stacks *ps = process->stacks;
	struct raw_stack *r;

	if (!ps || !stack_id || !(r = g_hash_table_lookup(ps->stacks, &stack_id)))
		return NULL;
	if (!r->named) {
		/* stacks the pass added since: their callers may make more helpers */
		if (!ps->helpers || ps->helpers_for != g_hash_table_size(ps->stacks))
			find_helpers(ps);
		r->named = name_stack(ps, r);
	}
	return r->named;
}

GArray *ct_stack_copy(const struct ct_stack *stack, GStringChunk *strings)
{
	GArray *out;

	if (!stack)
		return NULL;
	out = g_array_sized_new(FALSE, FALSE, sizeof(struct ct_stack_frame), (guint)stack->count);
	for (size_t i = 0; i < stack->count; i++) {
		struct ct_stack_frame f = stack->frames[i];

		f.symbol.object = copy_string(strings, f.symbol.object);
		f.symbol.function = copy_string(strings, f.symbol.function);
		f.symbol.file = copy_string(strings, f.symbol.file);
		g_array_append_val(out, f);
	}
	return out;
}

char *ct_python_site_format(const char *file, unsigned line, const char *function, char *buf,
                            size_t len)
{
	snprintf(buf, len, "%s:%u in %s", file ? base_name(file) : "?", line,
	         function ? function : "?");
	return buf;
}

char *ct_stack_site_format(const struct ct_stack *stack, char *buf, size_t len)
{
	const struct ct_stack_frame *f;

	if (!stack || stack->site >= stack->count)
		return NULL;
	f = &stack->frames[stack->site];
	if (f->python && f->cell && f->symbol.function && strcmp(f->symbol.function, "<module>"))
		snprintf(buf, len, "In [%" PRIu64 "] line %u in %s", f->cell, f->cell_line,
		         f->symbol.function);
	else if (f->python && f->cell)
		snprintf(buf, len, "In [%" PRIu64 "] line %u", f->cell, f->cell_line);
	else if (f->python)
		ct_python_site_format(f->symbol.file, f->symbol.line, f->symbol.function, buf, len);
	else if (f->symbol.function && f->symbol.file && f->symbol.line)
		snprintf(buf, len, "%s (%s:%u)", f->symbol.function, base_name(f->symbol.file),
		         f->symbol.line);
	else if (f->symbol.function)
		snprintf(buf, len, "%s (%s)", f->symbol.function, base_name(f->symbol.object));
	else
		snprintf(buf, len, "%s+0x%llx", base_name(f->symbol.object),
		         (unsigned long long)f->symbol.offset);
	return buf;
}
