/* SPDX-License-Identifier: MIT */
/*
 * gpu-time-export.c - the GPU-time export's reading half (see
 * gpu-time-export.h): each GPU record the reader hands over becomes an
 * operation of plain data in a batch, which goes to the writing thread
 * (gpu-time-writer.h) when it is full. Kernel names, which the reader's
 * context may replace while the writer still holds an operation, are
 * kept in a table of the exporter's, as long as it lives.
 *
 * The reader cannot be told to stop by an analysis: after a failure, the
 * exporter takes nothing more and says why at its close.
 */
#include <stdarg.h>
#include <string.h>

#include <glib.h>

#include "model/context.h"
#include "common/memo.h"
#include "contract/mix64.h"
#include "gpu-time-export.h"
#include "gpu-time-writer.h"

struct ct_gpu_time {
	struct ct_gpu_time_writer *writer; /* owned */
	struct ct_gpu_time_batch *batch;   /* being filled, the writer's; NULL: none */
	bool has_trace;                    /* the writer knows the trace of the operations */
	/* struct named, keyed by its struct key (a kernel, a copy's direction, a
	 * process's name): owned */
	GHashTable *names;
	struct ct_memo names_found; /* the struct named found last, by key_hash64 */
	GPtrArray *retired;         /* names replaced while operations may borrow them; owned */
	/* The process named last, at its count of name changes, and that name (in names). */
	const struct ct_process *named_process;
	uint32_t named_changes;
	const char *procname;
};

/* ------------------------------------------------------------ names */

/*
 * What names are keyed by: a kernel of a process, a copy direction, a
 * process's name as it was after so many changes (a statedump's, then a
 * cudatrace event's: the process's own, written in place, is no string
 * the writing thread may read). Looked up for every GPU record, so a few
 * words hashed rather than a string formatted and hashed.
 */
enum key_kind { KEY_KERNEL, KEY_COPY, KEY_PROCNAME };

struct key {
	const struct ct_process *process;
	uint64_t id; /* kernel_id, direction, or the process's procname_changes */
	enum key_kind kind;
};

/* A name and its key: the table's key and value at once. */
struct named {
	struct key key; /* first: the table hashes and compares it */
	char *name;
};

static uint64_t key_hash64(const struct key *k)
{
	return ct_mix64(ct_mix64((uint64_t)(uintptr_t)k->process ^ k->kind) ^ k->id);
}

static guint key_hash(gconstpointer data)
{
	return (guint)key_hash64(data);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const struct key *x = a, *y = b;

	return x->process == y->process && x->id == y->id && x->kind == y->kind;
}

static void named_free(gpointer data)
{
	struct named *n = data;

	g_free(n->name);
	g_free(n);
}

/* KEY's name NAME (owned) into the table. */
static struct named *name_keep(struct ct_gpu_time *x, const struct key *key, char *name)
{
	struct named *n = g_new(struct named, 1);

	n->key = *key;
	n->name = name;
	g_hash_table_add(x->names, n);
	return n;
}

/*
 * The name of KEY in the names table, made by FMT when it has none yet.
 * Names live as long as the exporter: operations borrow them, on the
 * writing thread too, so that an operation costs no string of its own.
 */
static const char *name_of(struct ct_gpu_time *x, const struct key *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static const char *name_of(struct ct_gpu_time *x, const struct key *key, const char *fmt, ...)
{
	/* every GPU record asks, and a loop's ask for a few names over and over */
	uint64_t hash = key_hash64(key);
	struct named *n = ct_memo_find(&x->names_found, hash);
	va_list ap;

	if (n && key_equal(&n->key, key))
		return n->name;
	n = g_hash_table_lookup(x->names, key);
	if (!n) {
		va_start(ap, fmt);
		n = name_keep(x, key, g_strdup_vprintf(fmt, ap));
		va_end(ap);
	}
	ct_memo_keep(&x->names_found, hash, n);
	return n->name;
}

static const char *kernel_name(struct ct_gpu_time *x, const struct ct_process *process,
                               uint64_t kernel_id)
{
	struct key key = { process, kernel_id, KEY_KERNEL };

	return name_of(x, &key, "kernel 0x%llx", (unsigned long long)kernel_id);
}

/*
 * A kernel_name event. A kernel named "kernel 0x..." before its name came
 * keeps that string alive for the operations that borrow it.
 */
static void name_kernel(struct ct_gpu_time *x, const struct ct_event *ev)
{
	struct key key = { ev->process, ev->u.kernel_name.kernel_id, KEY_KERNEL };
	char *name = g_strndup(ev->u.kernel_name.name ? ev->u.kernel_name.name : "",
	                       ev->u.kernel_name.name_len);
	struct named *n = g_hash_table_lookup(x->names, &key);

	/* a kernel named before keeps its entry, which the memo may hold, and takes the name */
	if (!n) {
		name_keep(x, &key, name);
		return;
	}
	g_ptr_array_add(x->retired, n->name);
	n->name = name;
}

/* PROCESS's name, which operations borrow: the last process's is kept, for every record asks. */
static const char *procname_of(struct ct_gpu_time *x, const struct ct_process *process)
{
	if (process == x->named_process && process->procname_changes == x->named_changes)
		return x->procname;
	x->procname = name_of(x, &(struct key){ process, process->procname_changes, KEY_PROCNAME },
	                      "%s", process->procname);
	x->named_process = process;
	x->named_changes = process->procname_changes;
	return x->procname;
}

/* ------------------------------------------------------------ operations */

/* What every GPU record says of its operation: its GPU times, call, device, context, stream. */
#define WHERE_AND_WHEN(op, rec)                              \
	do {                                                 \
		(op)->start = (int64_t)(rec).start;          \
		(op)->end = (int64_t)(rec).end;              \
		(op)->correlation_id = (rec).correlation_id; \
		(op)->device = (rec).device;                 \
		(op)->context = (rec).context;               \
		(op)->stream = (rec).stream;                 \
	} while (0)

/* The operation of a GPU record EV, into T. */
static void describe(struct ct_gpu_time *x, const struct ct_event *ev, struct ct_gpu_time_op *t)
{
	struct ct_gpu_op *op = &t->op;

	memset(t, 0, sizeof(*t));
	t->process = ev->process;
	op->procname = procname_of(x, ev->process);
	op->vpid = (int32_t)ev->process->pid;
	switch (ev->type) {
	case CT_EV_GPU_KERNEL:
		op->kind = CT_GPU_OP_KERNEL;
		WHERE_AND_WHEN(op, ev->u.gpu_kernel);
		op->name = kernel_name(x, ev->process, ev->u.gpu_kernel.kernel_id);
		op->grid_x = ev->u.gpu_kernel.grid_x;
		op->grid_y = ev->u.gpu_kernel.grid_y;
		op->grid_z = ev->u.gpu_kernel.grid_z;
		op->block_x = ev->u.gpu_kernel.block_x;
		op->block_y = ev->u.gpu_kernel.block_y;
		op->block_z = ev->u.gpu_kernel.block_z;
		break;
	case CT_EV_GPU_MEMCPY:
		op->kind = CT_GPU_OP_MEMCPY;
		WHERE_AND_WHEN(op, ev->u.gpu_memcpy);
		op->direction = ct_direction_label(ev->u.gpu_memcpy.direction);
		op->name = name_of(x, &(struct key){ NULL, ev->u.gpu_memcpy.direction, KEY_COPY },
		                   "memcpy %s", op->direction);
		op->bytes = ev->u.gpu_memcpy.bytes;
		break;
	default:
		op->kind = CT_GPU_OP_MEMSET;
		WHERE_AND_WHEN(op, ev->u.gpu_memset);
		op->name = "memset";
		op->bytes = ev->u.gpu_memset.bytes;
		op->value = ev->u.gpu_memset.value;
		break;
	}
}

static void gpu_time_event(void *state, const struct ct_event *ev)
{
	struct ct_gpu_time *x = state;

	if (ev->type == CT_EV_KERNEL_NAME) {
		name_kernel(x, ev);
		return;
	}
	if (ct_gpu_time_writer_failed(x->writer))
		return;
	if (!x->has_trace) {
		/* the GPU-time trace keeps the clock and environment of the first record's */
		ct_gpu_time_writer_set_trace(x->writer, ev->trace);
		x->has_trace = true;
	}
	if (!x->batch)
		x->batch = ct_gpu_time_writer_batch(x->writer);
	describe(x, ev, &x->batch->ops[x->batch->count++]);
	if (x->batch->count == CT_GPU_TIME_BATCH) {
		ct_gpu_time_writer_give(x->writer, x->batch);
		x->batch = NULL;
	}
}

/* ------------------------------------------------------------ lifecycle */

struct ct_gpu_time *ct_gpu_time_create(const char *dir, struct ct_gpu_time_stats *stats,
                                       char *error, size_t len)
{
	struct ct_gpu_time *x = g_new0(struct ct_gpu_time, 1);

	x->names = g_hash_table_new_full(key_hash, key_equal, named_free, NULL);
	x->retired = g_ptr_array_new_with_free_func(g_free);
	x->writer = ct_gpu_time_writer_create(dir, stats, error, len);
	if (!x->writer) {
		ct_gpu_time_export.destroy(x);
		return NULL;
	}
	return x;
}

int ct_gpu_time_close(struct ct_gpu_time *x, char *error, size_t len)
{
	if (x->batch) {
		ct_gpu_time_writer_give(x->writer, x->batch);
		x->batch = NULL;
	}
	return ct_gpu_time_writer_close(x->writer, error, len);
}

static enum ct_analysis_status gpu_time_finish(void *state, int64_t end_ns)
{
	(void)state;
	(void)end_ns;
	return CT_ANALYSIS_OK;
}

static enum ct_analysis_status gpu_time_result(void *state, const void **result)
{
	*result = state;
	return CT_ANALYSIS_OK;
}

static void gpu_time_destroy(void *state)
{
	struct ct_gpu_time *x = state;

	if (!x)
		return;
	/* first: the writing thread borrows the names */
	ct_gpu_time_writer_destroy(x->writer);
	g_hash_table_destroy(x->names);
	g_ptr_array_free(x->retired, TRUE);
	g_free(x);
}

const struct ct_analysis_class ct_gpu_time_export = {
	.name = "gpu-time",
	.wants = CT_EV_BIT(CT_EV_GPU_KERNEL) | CT_EV_BIT(CT_EV_GPU_MEMCPY) |
	         CT_EV_BIT(CT_EV_GPU_MEMSET) | CT_EV_BIT(CT_EV_KERNEL_NAME),
	.event = gpu_time_event,
	.finish = gpu_time_finish,
	.result = gpu_time_result,
	.destroy = gpu_time_destroy,
};
