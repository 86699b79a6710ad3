/* SPDX-License-Identifier: MIT */
/*
 * call-stacks.c - call stacks by process, named and folded (see
 * call-stacks.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "call-stacks.h"

/*
 * The objects whose frames are folded, by the start of their file name:
 * the CUDA driver, runtime and libraries, CUPTI, the tracer and its
 * unwinder and tracing library, the C library and its loader (the frames
 * below main), the allocators of PyTorch, TensorFlow, JAX/XLA and
 * CuPy, which call cudaMalloc on behalf of the code that asked them for
 * memory, and the Python interpreter with ctypes and libffi, whose
 * frames say nothing of the Python code that runs (a stack of a Python
 * program is all folded, and its site is its NVTX range and call).
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

struct process_key {
	char *hostname; /* owned */
	int64_t pid;
};

struct raw_stack {
	size_t count;
	uint64_t *frames;       /* owned */
	struct ct_stack *named; /* owned; NULL until asked for */
};

struct process_stacks {
	GHashTable *stacks; /* uint64_t stack id (owned) -> struct raw_stack (owned) */
	struct ct_symbolizer *symbolizer;
	GStringChunk *strings; /* the named frames' strings */
};

struct ct_call_stacks {
	GHashTable *processes; /* struct process_key (owned) -> struct process_stacks (owned) */
	char *debug_dirs;      /* owned; NULL: none */
};

static guint key_hash(gconstpointer p)
{
	const struct process_key *k = p;

	return g_str_hash(k->hostname) ^ g_int64_hash(&k->pid);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const struct process_key *x = a, *y = b;

	return x->pid == y->pid && !strcmp(x->hostname, y->hostname);
}

static void key_free(gpointer p)
{
	struct process_key *k = p;

	g_free(k->hostname);
	g_free(k);
}

static void raw_free(gpointer p)
{
	struct raw_stack *r = p;

	if (r->named)
		g_free(r->named->frames);
	g_free(r->named);
	g_free(r->frames);
	g_free(r);
}

static void process_free(gpointer p)
{
	struct process_stacks *ps = p;

	g_hash_table_destroy(ps->stacks);
	ct_symbolizer_destroy(ps->symbolizer);
	g_string_chunk_free(ps->strings);
	g_free(ps);
}

struct ct_call_stacks *ct_call_stacks_create(void)
{
	struct ct_call_stacks *cs = g_new0(struct ct_call_stacks, 1);

	cs->processes = g_hash_table_new_full(key_hash, key_equal, key_free, process_free);
	return cs;
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
	g_hash_table_destroy(cs->processes);
	g_free(cs->debug_dirs);
	g_free(cs);
}

/* The process (HOSTNAME, PID), created when CREATE. */
static struct process_stacks *process_of(struct ct_call_stacks *cs, const char *hostname,
                                         int64_t pid, bool create)
{
	struct process_key key = { .hostname = (char *)(hostname ? hostname : ""), .pid = pid };
	struct process_stacks *ps = g_hash_table_lookup(cs->processes, &key);
	struct process_key *owned;

	if (ps || !create)
		return ps;
	ps = g_new0(struct process_stacks, 1);
	ps->stacks = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, raw_free);
	ps->symbolizer = ct_symbolizer_create(cs->debug_dirs);
	ps->strings = g_string_chunk_new(4096);
	owned = g_new(struct process_key, 1);
	owned->hostname = g_strdup(key.hostname);
	owned->pid = pid;
	g_hash_table_insert(cs->processes, owned, ps);
	return ps;
}

void ct_call_stacks_add(struct ct_call_stacks *cs, const char *hostname, int64_t pid,
                        uint64_t stack_id, const uint64_t *frames, size_t count)
{
	struct process_stacks *ps = process_of(cs, hostname, pid, true);
	struct raw_stack *r;

	/* a stack emitted again (a session that started later) is the same */
	if (!stack_id || g_hash_table_contains(ps->stacks, &stack_id))
		return;
	r = g_new0(struct raw_stack, 1);
	r->count = count;
	r->frames = g_memdup2(frames, count * sizeof(*frames));
	g_hash_table_insert(ps->stacks, g_memdup2(&stack_id, sizeof(stack_id)), r);
}

void ct_call_stacks_add_object(struct ct_call_stacks *cs, const char *hostname, int64_t pid,
                               uint64_t base, uint64_t size, const char *path)
{
	ct_symbolizer_add_object(process_of(cs, hostname, pid, true)->symbolizer, base, size, path);
}

void ct_call_stacks_set_build_id(struct ct_call_stacks *cs, const char *hostname, int64_t pid,
                                 uint64_t base, const uint8_t *id, size_t len)
{
	ct_symbolizer_set_build_id(process_of(cs, hostname, pid, true)->symbolizer, base, id, len);
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

static bool is_folded(const char *object)
{
	const char *name = base_name(object);

	if (!name)
		return false;
	for (size_t i = 0; i < G_N_ELEMENTS(folded_objects); i++)
		if (!strncmp(name, folded_objects[i], strlen(folded_objects[i])))
			return true;
	return false;
}

static const char *copy_string(GStringChunk *strings, const char *s)
{
	return s ? g_string_chunk_insert_const(strings, s) : NULL;
}

/* The most functions inlined into one another at one address that are named. */
#define INLINE_MAX 16

static struct ct_stack *name_stack(struct process_stacks *ps, const struct raw_stack *r)
{
	GArray *frames =
	    g_array_sized_new(FALSE, TRUE, sizeof(struct ct_stack_frame), (guint)r->count);
	struct ct_stack *st = g_new0(struct ct_stack, 1);

	st->site = SIZE_MAX;
	for (size_t i = 0; i < r->count; i++) {
		struct ct_symbol syms[INLINE_MAX];
		size_t n =
		    ct_symbolizer_lookup(ps->symbolizer, r->frames[i], true, syms, INLINE_MAX);
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
			f.symbol.function = copy_string(ps->strings, f.symbol.function);
			f.symbol.file = copy_string(ps->strings, f.symbol.file);
			if (known && !f.folded && st->site == SIZE_MAX)
				st->site = frames->len;
			g_array_append_val(frames, f);
		}
	}
	st->count = frames->len;
	if (st->site == SIZE_MAX)
		st->site = st->count;
	st->frames = (struct ct_stack_frame *)g_array_free(frames, FALSE);
	return st;
}

const struct ct_stack *ct_call_stacks_get(struct ct_call_stacks *cs, const char *hostname,
                                          int64_t pid, uint64_t stack_id)
{
	struct process_stacks *ps = process_of(cs, hostname, pid, false);
	struct raw_stack *r;

	if (!ps || !stack_id || !(r = g_hash_table_lookup(ps->stacks, &stack_id)))
		return NULL;
	if (!r->named)
		r->named = name_stack(ps, r);
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

char *ct_stack_site_format(const struct ct_stack *stack, char *buf, size_t len)
{
	const struct ct_stack_frame *f;

	if (!stack || stack->site >= stack->count)
		return NULL;
	f = &stack->frames[stack->site];
	if (f->symbol.function && f->symbol.file && f->symbol.line)
		snprintf(buf, len, "%s (%s:%u)", f->symbol.function, base_name(f->symbol.file),
		         f->symbol.line);
	else if (f->symbol.function)
		snprintf(buf, len, "%s (%s)", f->symbol.function, base_name(f->symbol.object));
	else
		snprintf(buf, len, "%s+0x%llx", base_name(f->symbol.object),
		         (unsigned long long)f->symbol.offset);
	return buf;
}
