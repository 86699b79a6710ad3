/* SPDX-License-Identifier: MIT */
/*
 * context.c - processes, threads, NVTX paths and names of the trace being
 * read (see context.h).
 *
 * NVTX paths are interned: a path is (parent path, message), numbered on
 * first sight, so an event carries its whole range stack as one integer
 * and the hot path never builds a string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract/assert.h"
#include "context.h"
#include "common/memo.h"
#include "common/saturate.h"

_Static_assert(sizeof(((struct ct_process *)0)->devices) == 256 * sizeof(struct ct_device *),
               "devices are indexed by their 8-bit ordinal");

/* API domains with names: driver (1) and runtime (2). */
#define API_DOMAINS 3

/* Names a process recorded once. Owned by its process. */
struct ct_name_table {
	/* By domain (1, 2), then cbid: the API's name (owned), NULL if none. */
	GPtrArray *api[API_DOMAINS];
	/* uint64_t kernel id -> struct kernel_name (owned; the key is its id) */
	GHashTable *kernels;
	/* The names found last (in kernels): a loop names a few kernels over and over. */
	struct ct_memo kernels_found;
	/*
	 * Names an api_name or kernel_name event replaced by another text
	 * (char *, owned): kept, so that a name handed out stays as it is
	 * while the context lives (the Perfetto export knows a name again by
	 * its address). A name given again with the same text (a module
	 * loaded again) replaces nothing, so these are as many as the names
	 * that changed, not as the events.
	 */
	GPtrArray *replaced;
};

struct kernel_name {
	uint64_t id;
	char *name; /* owned */
};

/* An interned NVTX path. */
struct path_entry {
	uint32_t id;
	uint32_t parent;
	uint32_t depth;
	char *message; /* owned */
};

/* What identifies a process. */
struct process_key {
	const char *hostname; /* interned: compared by address */
	int64_t pid;
};

/* What identifies a thread. */
struct thread_key {
	const struct ct_process *process;
	int64_t tid;
};

struct ct_context {
	GPtrArray *processes;    /* struct ct_process, owned, listed, in order of appearance */
	GPtrArray *unlisted;     /* struct ct_process, owned, named by statedumps only */
	GHashTable *process_ids; /* struct process_key (owned) -> process (borrowed) */
	GStringChunk *hostnames; /* interned hostnames */
	GPtrArray *threads;      /* struct ct_thread, owned, in order of appearance */
	GHashTable *thread_ids;  /* struct thread_key (owned) -> thread (borrowed) */
	GPtrArray *paths;        /* struct path_entry, owned, by id; [0] is "no path" */
	GHashTable *path_ids;    /* path_entry (parent, message) -> itself, borrowed */
	uint32_t overflow_path;  /* shared by new paths beyond CT_PATH_MAX, 0 until needed */
	int slots_used;
	struct ct_losses losses;
	struct ct_call_stacks *stacks; /* owned */
	struct ct_acct *accounting;    /* borrowed: the pass's */
};

/* -------------------------------------------------------------- keys */

static guint process_key_hash(gconstpointer key)
{
	const struct process_key *k = key;

	return g_direct_hash(k->hostname) ^ g_int64_hash(&k->pid);
}

static gboolean process_key_equal(gconstpointer a, gconstpointer b)
{
	const struct process_key *x = a, *y = b;

	return x->hostname == y->hostname && x->pid == y->pid;
}

static guint thread_key_hash(gconstpointer key)
{
	const struct thread_key *k = key;

	return g_direct_hash(k->process) ^ g_int64_hash(&k->tid);
}

static gboolean thread_key_equal(gconstpointer a, gconstpointer b)
{
	const struct thread_key *x = a, *y = b;

	return x->process == y->process && x->tid == y->tid;
}

static guint path_hash(gconstpointer key)
{
	const struct path_entry *e = key;

	return g_str_hash(e->message) ^ e->parent * 2654435761u;
}

static gboolean path_equal(gconstpointer a, gconstpointer b)
{
	const struct path_entry *x = a, *y = b;

	return x->parent == y->parent && !strcmp(x->message, y->message);
}

/* -------------------------------------------------------------- basics */

static void kernel_name_free(gpointer data)
{
	struct kernel_name *k = data;

	g_free(k->name);
	g_free(k);
}

static void name_table_free(struct ct_name_table *names)
{
	if (!names)
		return;
	for (int d = 0; d < API_DOMAINS; d++)
		g_ptr_array_free(names->api[d], TRUE);
	g_hash_table_destroy(names->kernels);
	g_ptr_array_free(names->replaced, TRUE);
	g_free(names);
}

static void process_free(gpointer data)
{
	struct ct_process *p = data;

	for (int d = 0; d < 256; d++) {
		g_free(p->devices[d]);
		ct_gpu_timeline_free(p->busy[d]);
	}
	name_table_free(p->names);
	if (p->forked)
		g_array_free(p->forked, TRUE);
	ct_process_stacks_free(p->stacks);
	g_free(p);
}

static void thread_free(gpointer data)
{
	struct ct_thread *t = data;

	g_array_unref(t->nvtx);
	if (t->calls)
		g_array_unref(t->calls);
	g_free(t);
}

static void path_free(gpointer data)
{
	struct path_entry *e = data;

	g_free(e->message);
	g_free(e);
}

struct ct_context *ct_context_create(void)
{
	struct ct_context *ctx = g_new0(struct ct_context, 1);
	struct path_entry *none = g_new0(struct path_entry, 1);

	ctx->processes = g_ptr_array_new_with_free_func(process_free);
	ctx->unlisted = g_ptr_array_new_with_free_func(process_free);
	ctx->process_ids = g_hash_table_new_full(process_key_hash, process_key_equal, g_free, NULL);
	ctx->hostnames = g_string_chunk_new(256);
	ctx->threads = g_ptr_array_new_with_free_func(thread_free);
	ctx->thread_ids = g_hash_table_new_full(thread_key_hash, thread_key_equal, g_free, NULL);
	ctx->paths = g_ptr_array_new_with_free_func(path_free);
	ctx->path_ids = g_hash_table_new(path_hash, path_equal);
	/* id 0: not inside any range */
	g_ptr_array_add(ctx->paths, none);
	ctx->losses.first_ns = INT64_MAX;
	ctx->stacks = ct_call_stacks_create();
	return ctx;
}

void ct_context_destroy(struct ct_context *ctx)
{
	if (!ctx)
		return;
	g_hash_table_destroy(ctx->path_ids);
	g_ptr_array_free(ctx->paths, TRUE);
	g_hash_table_destroy(ctx->thread_ids);
	g_ptr_array_free(ctx->threads, TRUE);
	g_hash_table_destroy(ctx->process_ids);
	g_ptr_array_free(ctx->processes, TRUE);
	g_ptr_array_free(ctx->unlisted, TRUE);
	g_string_chunk_free(ctx->hostnames);
	ct_call_stacks_destroy(ctx->stacks);
	g_free(ctx);
}

struct ct_call_stacks *ct_context_call_stacks(struct ct_context *ctx)
{
	return ctx->stacks;
}

struct ct_acct *ct_context_accounting(const struct ct_context *ctx)
{
	return ctx->accounting;
}

void ct_context_set_accounting(struct ct_context *ctx, struct ct_acct *acct)
{
	ctx->accounting = acct;
}

int ct_context_slot(struct ct_context *ctx)
{
	if (ctx->slots_used >= CT_SLOTS)
		return -1;
	return ctx->slots_used++;
}

/* ------------------------------------------------------------ processes */

static struct ct_process *process_new(struct ct_context *ctx, const char *hostname, int64_t pid)
{
	struct ct_process *p = g_new0(struct ct_process, 1);
	struct ct_name_table *names = g_new0(struct ct_name_table, 1);

	for (int d = 0; d < API_DOMAINS; d++)
		names->api[d] = g_ptr_array_new_with_free_func(g_free);
	names->kernels = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, kernel_name_free);
	names->replaced = g_ptr_array_new_with_free_func(g_free);
	p->names = names;
	p->pid = pid;
	p->hostname = hostname;
	p->first_ns = INT64_MAX;
	p->last_ns = INT64_MIN;
	p->first_drop_ns = INT64_MAX;
	g_ptr_array_add(ctx->unlisted, p);
	return p;
}

void ct_process_name(struct ct_process *p, const char *name, bool dumped)
{
	if (!name || !name[0] || (p->procname[0] && (dumped || !p->procname_dumped)))
		return;
	snprintf(p->procname, sizeof(p->procname), "%s", name);
	p->procname_dumped = dumped;
	p->procname_changes++;
}

/* P among the processes, numbered in order of its first cudatrace event. */
static void process_list(struct ct_context *ctx, struct ct_process *p)
{
	guint i;

	if (g_ptr_array_find(ctx->unlisted, p, &i))
		g_ptr_array_steal_index_fast(ctx->unlisted, i);
	p->index = ctx->processes->len;
	p->listed = true;
	g_ptr_array_add(ctx->processes, p);
}

/* The process (HOSTNAME, PID), created unlisted on first use. */
static struct ct_process *process_of(struct ct_context *ctx, const char *hostname, int64_t pid)
{
	struct process_key key = {
		.hostname = g_string_chunk_insert_const(ctx->hostnames, hostname ? hostname : ""),
		.pid = pid,
	};
	struct ct_process *p = g_hash_table_lookup(ctx->process_ids, &key);

	if (p)
		return p;
	p = process_new(ctx, key.hostname, pid);
	g_hash_table_insert(ctx->process_ids, g_memdup2(&key, sizeof(key)), p);
	return p;
}

struct ct_process *ct_context_process(struct ct_context *ctx, const char *hostname, int64_t pid)
{
	struct ct_process *p = process_of(ctx, hostname, pid);

	if (!p->listed)
		process_list(ctx, p);
	return p;
}

struct ct_process *ct_context_statedump_process(struct ct_context *ctx, const char *hostname,
                                                int64_t pid)
{
	return process_of(ctx, hostname, pid);
}

size_t ct_context_process_count(const struct ct_context *ctx)
{
	return ctx->processes->len;
}

struct ct_process *ct_context_process_at(const struct ct_context *ctx, size_t i)
{
	return i < ctx->processes->len ? g_ptr_array_index(ctx->processes, i) : NULL;
}

void ct_context_note_loss(struct ct_context *ctx, int64_t time_ns, uint64_t events,
                          uint64_t packets)
{
	if (!events && !packets)
		return;
	ctx->losses.events = ct_sat_add_u64(ctx->losses.events, events);
	ctx->losses.packets = ct_sat_add_u64(ctx->losses.packets, packets);
	if (time_ns < ctx->losses.first_ns)
		ctx->losses.first_ns = time_ns;
}

const struct ct_losses *ct_context_losses(const struct ct_context *ctx)
{
	return &ctx->losses;
}

struct ct_device *ct_context_device(struct ct_process *process, unsigned ordinal)
{
	struct ct_device *d = process->devices[ordinal & 0xff];

	if (!d) {
		d = g_new0(struct ct_device, 1);
		d->ordinal = (uint8_t)ordinal;
		process->devices[ordinal & 0xff] = d;
	}
	return d;
}

/* -------------------------------------------------------------- threads */

struct ct_thread *ct_context_thread(struct ct_context *ctx, struct ct_process *process, int64_t tid)
{
	struct thread_key key = { process, tid };
	struct ct_thread *t = g_hash_table_lookup(ctx->thread_ids, &key);

	if (t)
		return t;
	t = g_new0(struct ct_thread, 1);
	t->process = process;
	t->tid = tid;
	t->nvtx = g_array_new(FALSE, FALSE, sizeof(struct ct_nvtx_frame));
	g_ptr_array_add(ctx->threads, t);
	g_hash_table_insert(ctx->thread_ids, g_memdup2(&key, sizeof(key)), t);
	return t;
}

void ct_context_foreach_thread(struct ct_context *ctx, void (*fn)(struct ct_thread *, void *),
                               void *data)
{
	for (guint i = 0; i < ctx->threads->len; i++)
		fn(g_ptr_array_index(ctx->threads, i), data);
}

void ct_context_free_thread_slots(struct ct_context *ctx, int slot)
{
	for (guint i = 0; i < ctx->threads->len; i++) {
		struct ct_thread *t = g_ptr_array_index(ctx->threads, i);

		g_free(t->slot[slot]);
		t->slot[slot] = NULL;
	}
}

/* ---------------------------------------------------------------- paths */

static const struct path_entry *path_at(const struct ct_context *ctx, uint32_t id)
{
	return g_ptr_array_index(ctx->paths, id);
}

/* A new path id for (parent, message). */
static uint32_t path_add(struct ct_context *ctx, uint32_t parent, const char *message)
{
	struct path_entry *e = g_new(struct path_entry, 1);

	CT_ASSERT(parent < ctx->paths->len);
	e->id = ctx->paths->len;
	e->parent = parent;
	e->depth = parent ? path_at(ctx, parent)->depth + 1 : 1;
	e->message = g_strdup(message);
	g_ptr_array_add(ctx->paths, e);
	g_hash_table_add(ctx->path_ids, e);
	return e->id;
}

/* The id of (parent, message), interned on first sight. */
static uint32_t path_intern(struct ct_context *ctx, uint32_t parent, const char *message)
{
	struct path_entry key = { .parent = parent, .message = (char *)(message ? message : "") };
	const struct path_entry *e = g_hash_table_lookup(ctx->path_ids, &key);

	if (e)
		return e->id;
	if (ctx->paths->len >= CT_PATH_MAX) {
		if (!ctx->overflow_path)
			ctx->overflow_path = path_add(ctx, CT_PATH_NONE, "…");
		return ctx->overflow_path;
	}
	return path_add(ctx, parent, key.message);
}

uint32_t ct_path_parent(const struct ct_context *ctx, uint32_t path)
{
	return path < ctx->paths->len ? path_at(ctx, path)->parent : CT_PATH_NONE;
}

uint32_t ct_path_depth(const struct ct_context *ctx, uint32_t path)
{
	return path && path < ctx->paths->len ? path_at(ctx, path)->depth : 0;
}

const char *ct_path_message(const struct ct_context *ctx, uint32_t path)
{
	return path && path < ctx->paths->len ? path_at(ctx, path)->message : "";
}

uint32_t ct_path_count(const struct ct_context *ctx)
{
	return ctx->paths->len;
}

int ct_path_contains(const struct ct_context *ctx, uint32_t path, const char *message)
{
	for (; path && path < ctx->paths->len; path = path_at(ctx, path)->parent)
		if (!strcmp(path_at(ctx, path)->message, message))
			return 1;
	return 0;
}

char *ct_path_format(const struct ct_context *ctx, uint32_t path, char *buf, size_t len)
{
	uint32_t chain[256];
	size_t n = 0, used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (; path && path < ctx->paths->len && n < 256; path = path_at(ctx, path)->parent)
		chain[n++] = path;
	while (n-- > 0) {
		int w = snprintf(buf + used, len - used, "%s%s", used ? "/" : "",
		                 path_at(ctx, chain[n])->message);

		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	return buf;
}

char *ct_site_format(const struct ct_context *ctx, const struct ct_process *process, uint32_t path,
                     const struct ct_api_ref *api, char *buf, size_t len)
{
	const char *name = api ? ct_context_api_name(process, api->domain, api->cbid) : NULL;
	char unknown[32];
	size_t used;

	ct_path_format(ctx, path, buf, len);
	if (!api || !len)
		return buf;
	if (!name) {
		snprintf(unknown, sizeof(unknown), "%s#%u",
		         api->domain == CT_DOMAIN_DRIVER ? "driver" : "runtime",
		         (unsigned)api->cbid);
		name = unknown;
	}
	used = strlen(buf);
	snprintf(buf + used, len - used, "%s%s", used ? ":" : "", name);
	return buf;
}

char *ct_call_site_format(struct ct_context *ctx, const struct ct_process *process, uint32_t path,
                          const struct ct_api_ref *api, uint64_t stack_id, char *buf, size_t len)
{
	const struct ct_stack *stack = ct_call_stacks_get(process, stack_id);

	char frame[512];
	size_t used;

	if (!len || !ct_stack_site_format(stack, frame, sizeof(frame)))
		return ct_site_format(ctx, process, path, api, buf, len);
	ct_path_format(ctx, path, buf, len);
	used = strlen(buf);
	snprintf(buf + used, len - used, "%s%s", used ? ":" : "", frame);
	return buf;
}

/* ---------------------------------------------------------------- names */

/*
 * NAME (owned) in *SLOT (NULL: none yet). The name there, when another,
 * is kept in names->replaced: a name handed out stays as it is.
 */
static void rename_to(struct ct_name_table *names, char **slot, char *name)
{
	if (*slot && !strcmp(*slot, name)) {
		g_free(name);
		return;
	}
	if (*slot)
		g_ptr_array_add(names->replaced, *slot);
	*slot = name;
}

static void set_api_name(struct ct_name_table *names, unsigned domain, unsigned cbid,
                         const char *name)
{
	GPtrArray *api;
	char *copy;

	if (domain < 1 || domain >= API_DOMAINS || cbid > 65535)
		return;
	api = names->api[domain];
	if (cbid >= api->len)
		g_ptr_array_set_size(api, (gint)cbid + 1);
	copy = g_strdup(name ? name : "");
	ct_api_name_normalize(copy);
	rename_to(names, (char **)&api->pdata[cbid], copy);
}

const char *ct_context_api_name(const struct ct_process *process, unsigned domain, unsigned cbid)
{
	const struct ct_name_table *names = process ? process->names : NULL;

	if (names && domain >= 1 && domain < API_DOMAINS && cbid < names->api[domain]->len &&
	    g_ptr_array_index(names->api[domain], cbid))
		return g_ptr_array_index(names->api[domain], cbid);
	return ct_cupti_cbid_name(domain, cbid);
}

static void set_kernel_name(struct ct_name_table *names, uint64_t id, const char *name)
{
	struct kernel_name *k;

	/* no kernel has id 0: FNV-1a never gives it for a real name */
	if (!id)
		return;
	/* a kernel named before keeps its entry, which the memo may hold, and takes the name */
	k = g_hash_table_lookup(names->kernels, &id);
	if (!k) {
		k = g_new0(struct kernel_name, 1);
		k->id = id;
		g_hash_table_insert(names->kernels, &k->id, k);
	}
	rename_to(names, &k->name, g_strdup(name ? name : ""));
}

const char *ct_context_kernel_name(const struct ct_process *process, uint64_t kernel_id)
{
	const struct kernel_name *k;

	if (!process || !process->names)
		return NULL;
	if ((k = ct_memo_find(&process->names->kernels_found, kernel_id)))
		return k->name;
	k = g_hash_table_lookup(process->names->kernels, &kernel_id);
	ct_memo_keep(&process->names->kernels_found, kernel_id, (void *)k);
	return k ? k->name : NULL;
}

/* --------------------------------------------------------------- update */

/* The path of THREAD's innermost open range, CT_PATH_NONE outside any. */
static uint32_t innermost(const struct ct_thread *t)
{
	return t->nvtx->len ? g_array_index(t->nvtx, struct ct_nvtx_frame, t->nvtx->len - 1).path
	                    : CT_PATH_NONE;
}

/*
 * Whether TEXT (LEN bytes) is TraceMe's metadata, "key=value" pairs
 * separated by commas (tsl/profiler/lib/traceme_encode.h), none empty.
 */
static bool traceme_pairs(const char *text, size_t len)
{
	size_t start = 0;

	if (!len)
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && text[i] != ',')
			continue;
		if (!memchr(text + start, '=', i - start) || text[start] == '=')
			return false;
		start = i + 1;
	}
	return true;
}

const char *ct_nvtx_name(const char *message, char *buf, size_t size)
{
	const char *hash, *last;
	size_t len, out = 0;

	if (!message || !size)
		return message;
	len = strlen(message);
	hash = strchr(message, '#');
	last = len ? message + len - 1 : message;
	if (!hash || hash == last || *last != '#' || memchr(hash + 1, '#', last - hash - 1) ||
	    !traceme_pairs(hash + 1, (size_t)(last - hash - 1)))
		return message;
	if (hash > message) {
		g_strlcpy(buf, message, MIN(size, (size_t)(hash - message) + 1));
		return buf;
	}
	/* no name: its values, "copy" of "#edge_name=copy#" */
	for (const char *p = hash + 1; p < last && out + 1 < size; p++) {
		const char *eq = memchr(p, '=', (size_t)(last - p));
		const char *end = memchr(eq, ',', (size_t)(last - eq));

		if (!end)
			end = last;
		if (out && out + 1 < size)
			buf[out++] = ',';
		for (const char *v = eq + 1; v < end && out + 1 < size; v++)
			buf[out++] = *v;
		p = end;
	}
	buf[out] = '\0';
	return buf;
}

static void nvtx_push(struct ct_context *ctx, struct ct_event *ev)
{
	struct ct_thread *t = ev->thread;
	char name[256];
	struct ct_nvtx_frame frame = {
		.domain = ev->u.nvtx_message.domain,
		.path = path_intern(ctx, innermost(t),
		                    ct_nvtx_name(ev->u.nvtx_message.message, name, sizeof(name))),
		.open_seq = ev->seq,
		.open_ns = ev->time_ns,
	};

	ev->nvtx.path = frame.path;
	ev->nvtx.depth = t->nvtx->len;
	g_array_append_val(t->nvtx, frame);
}

/* 1 when the pop closes no push. */
static int nvtx_pop(struct ct_event *ev)
{
	GArray *stack = ev->thread->nvtx;
	guint i = stack->len;

	/* a pop closes the last push of the same domain on the thread */
	while (i > 0 &&
	       g_array_index(stack, struct ct_nvtx_frame, i - 1).domain != ev->u.nvtx_pop.domain)
		i--;
	if (i == 0)
		return 1;
	i--;
	CT_ASSERT_DBG(i < stack->len);
	ev->nvtx.path = g_array_index(stack, struct ct_nvtx_frame, i).path;
	ev->nvtx.depth = i;
	g_array_remove_index(stack, i);
	return 0;
}

static void update_device_info(struct ct_event *ev)
{
	const struct ct_ev_device_info *e = &ev->u.device_info;
	struct ct_device *d = ct_context_device(ev->process, e->device);

	snprintf(d->name, sizeof(d->name), "%s", e->name ? e->name : "");
	d->global_memory = e->global_memory;
	d->memory_bandwidth = e->memory_bandwidth;
	d->cc_major = e->cc_major;
	d->cc_minor = e->cc_minor;
}

static void update_nvml(struct ct_event *ev)
{
	const struct ct_ev_nvml_sample *e = &ev->u.nvml_sample;
	struct ct_device *d = ct_context_device(ev->process, e->device);

	d->nvml_time_ns = ev->time_ns;
	d->nvml_free = e->free;
	d->nvml_used = e->used;
	d->nvml_total = e->total;
	if (!d->global_memory)
		d->global_memory = e->total;
}

static void update_tracer_info(struct ct_event *ev)
{
	const struct ct_ev_tracer_info *e = &ev->u.tracer_info;
	struct ct_process *p = ev->process;

	snprintf(p->tracer_version, sizeof(p->tracer_version), "%s", e->version ? e->version : "");
	/* a session without the procname context still names the process */
	ct_process_name(p, e->procname, false);
	p->cupti_version = e->cupti_version;
	p->driver_version = e->driver_version;
}

/* A loaded object, for naming call stacks: the statedump's objects, and
 * those loaded after it (library_load of a tracer that records their range). */
static void note_library(struct ct_context *ctx, struct ct_process *p,
                         const struct ct_ev_library_load *e)
{
	uint8_t id[64];
	size_t n = 0;

	if (!e->size)
		return;
	ct_call_stacks_add_object(ctx->stacks, p, e->base, e->size, e->path);
	for (; n < sizeof(id) && 2 * n + 1 < e->build_id_len; n++) {
		int hi = g_ascii_xdigit_value(e->build_id[2 * n]);
		int lo = g_ascii_xdigit_value(e->build_id[2 * n + 1]);

		if (hi < 0 || lo < 0)
			return;
		id[n] = (uint8_t)(hi << 4 | lo);
	}
	ct_call_stacks_set_build_id(ctx->stacks, p, e->base, id, n);
}

/* A child P forked (process_fork), kept for the trace section to name. */
static void note_fork(struct ct_process *p, const struct ct_event *ev)
{
	struct ct_fork fork = { ev->u.process_fork.child_pid, ev->time_ns };

	p->forks++;
	if (!p->forked)
		p->forked = g_array_new(FALSE, FALSE, sizeof(struct ct_fork));
	if (p->forked->len < CT_FORKS_KEPT)
		g_array_append_val(p->forked, fork);
}

/*
 * What the latest stack STACK_ID of EV's thread, of KIND
 * (ct_call_stacks_python), says: whether the thread is inside PyTorch's
 * backward. A stack of native code alone says nothing of where the
 * thread's Python is.
 */
static void note_python_stack(struct ct_process *p, const struct ct_event *ev, uint64_t stack_id,
                              enum ct_stack_python kind)
{
	struct ct_thread *t = ev->thread;
	bool in = kind == CT_STACK_AUTOGRAD;

	if (kind != CT_STACK_PYTHON && kind != CT_STACK_AUTOGRAD)
		return;
	if (in != t->in_backward) {
		t->in_backward = in;
		if (in)
			p->threads_in_backward++;
		else if (p->threads_in_backward)
			p->threads_in_backward--;
	}
	if (in) {
		t->backward_stack_id = stack_id;
		p->backward_thread = t;
	}
}

/*
 * The stack of an allocation made with stack *STACK_ID (mem_alloc,
 * mem_alloc_failed): when it has no Python frames and one other thread of
 * the process waits in PyTorch's backward, the allocation is work of the
 * autograd engine's threads (its backward pass) for that thread, and is
 * charged to its Python line, the one that called backward
 * (ct_call_stacks_compose). PyTorch runs a backward's CUDA work on a
 * thread of its own per device, and the caller waits for it
 * (torch/csrc/autograd/engine.cpp); with two threads in backward at once
 * which one asked is not known, and nothing is borrowed. The thread it is
 * charged to, NULL when none.
 */
static const struct ct_thread *borrow_python_stack(struct ct_context *ctx, struct ct_process *p,
                                                   const struct ct_event *ev, uint64_t *stack_id)
{
	const struct ct_thread *owner = p->backward_thread;
	enum ct_stack_python kind = ct_call_stacks_python(p, *stack_id);
	uint64_t composed;

	if (kind != CT_STACK_NATIVE) {
		note_python_stack(p, ev, *stack_id, kind);
		return NULL;
	}
	if (p->threads_in_backward != 1 || !owner || !owner->in_backward || owner == ev->thread)
		return NULL;
	composed = ct_call_stacks_compose(ctx->stacks, p, *stack_id, owner->backward_stack_id);
	if (!composed)
		return NULL;
	*stack_id = composed;
	return owner;
}

int ct_context_update(struct ct_context *ctx, struct ct_event *ev)
{
	struct ct_process *p = ev->process;
	const struct ct_thread *charged = NULL; /* the thread an allocation is charged to */
	int ret = 0;

	p->events++;
	if (ev->time_ns < p->first_ns)
		p->first_ns = ev->time_ns;
	if (ev->time_ns > p->last_ns)
		p->last_ns = ev->time_ns;
	switch (ev->type) {
	case CT_EV_API_NAME:
		set_api_name(p->names, ev->u.api_name.domain, ev->u.api_name.cbid,
		             ev->u.api_name.name);
		break;
	case CT_EV_KERNEL_NAME:
		set_kernel_name(p->names, ev->u.kernel_name.kernel_id, ev->u.kernel_name.name);
		break;
	case CT_EV_LIBRARY_LOAD:
		note_library(ctx, p, &ev->u.library_load);
		break;
	case CT_EV_CALL_STACK:
		ct_call_stacks_add(ctx->stacks, p, ev->u.call_stack.stack_id,
		                   ev->u.call_stack.frames, ev->u.call_stack.frames_count,
		                   ev->u.call_stack.python);
		break;
	case CT_EV_CALL_SITE:
		ev->thread->op_stack_id = ev->u.call_site.stack_id;
		note_python_stack(p, ev, ev->u.call_site.stack_id,
		                  ct_call_stacks_python(p, ev->u.call_site.stack_id));
		break;
	case CT_EV_MEM_ALLOC:
		charged = borrow_python_stack(ctx, p, ev, &ev->u.mem.stack_id);
		break;
	case CT_EV_MEM_ALLOC_FAILED:
		charged = borrow_python_stack(ctx, p, ev, &ev->u.mem_alloc_failed.stack_id);
		break;
	case CT_EV_CELL_BEGIN:
		ct_call_stacks_add_cell(ctx->stacks, p, ev->u.cell_begin.code_file,
		                        ev->u.cell_begin.execution_count, ev->u.cell_begin.line);
		break;
	case CT_EV_NVTX_PUSH:
		nvtx_push(ctx, ev);
		break;
	case CT_EV_NVTX_POP:
		ret = nvtx_pop(ev);
		break;
	case CT_EV_DEVICE_INFO:
		update_device_info(ev);
		break;
	case CT_EV_NVML_SAMPLE:
		update_nvml(ev);
		break;
	case CT_EV_TRACER_INFO:
		update_tracer_info(ev);
		break;
	case CT_EV_PROCESS_FORK:
		note_fork(p, ev);
		break;
	case CT_EV_ACTIVITY_DROPPED:
		if (ev->u.activity_dropped.count && ev->time_ns < p->first_drop_ns)
			p->first_drop_ns = ev->time_ns;
		p->dropped_records += ev->u.activity_dropped.count;
		break;
	default:
		break;
	}
	ev->site = innermost(ev->thread);
	/* charged to the thread that waits in backward: made inside its range too */
	if (charged && ev->site == CT_PATH_NONE)
		ev->site = innermost(charged);
	CT_ASSERT_DBG(ev->site < ctx->paths->len);
	return ret;
}
