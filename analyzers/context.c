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

#include "assert.h"
#include "context.h"

_Static_assert(sizeof(((struct ct_process *)0)->devices) == 256 * sizeof(struct ct_device *),
               "devices are indexed by their 8-bit ordinal");

#define PROCESS_BUCKETS 256u
#define THREAD_BUCKETS  1024u

/* Names a process recorded once. Owned by its process. */
struct ct_name_table {
	char **api[3]; /* [domain 1..2][cbid], owned strings; index 0 unused */
	uint32_t api_count[3];
	uint64_t *kernel_ids;   /* open addressing, 0 = empty slot */
	char **kernel_names;    /* owned strings, parallel to kernel_ids */
	size_t kernel_capacity; /* power of two */
	size_t kernel_count;
};

/* An interned NVTX path. */
struct path_entry {
	uint32_t parent;
	uint32_t depth;
	char *message; /* owned */
};

struct ct_context {
	struct ct_process **processes; /* owned, process_count used */
	size_t process_count;
	size_t process_capacity;
	struct ct_process *process_buckets[PROCESS_BUCKETS];
	char **hostnames; /* owned interned strings */
	size_t hostname_count;
	struct ct_thread *thread_buckets[THREAD_BUCKETS]; /* owned chains */
	struct path_entry *paths;                         /* owned; [0] is "no path" */
	uint32_t path_count;
	uint32_t path_capacity;
	uint32_t *path_index; /* open addressing over path ids, 0 = empty */
	uint32_t path_index_capacity;
	uint32_t overflow_path; /* shared by new paths beyond CT_PATH_MAX, 0 until needed */
	int slots_used;
};

/* -------------------------------------------------------------- basics */

struct ct_context *ct_context_create(void)
{
	struct ct_context *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->paths = calloc(64, sizeof(*ctx->paths));
	ctx->path_index = calloc(128, sizeof(*ctx->path_index));
	if (!ctx->paths || !ctx->path_index) {
		ct_context_destroy(ctx);
		return NULL;
	}
	ctx->path_capacity = 64;
	ctx->path_index_capacity = 128;
	ctx->paths[0].message = NULL;
	ctx->path_count = 1;
	return ctx;
}

static void name_table_free(struct ct_name_table *names)
{
	if (!names)
		return;
	for (int d = 0; d < 3; d++) {
		for (uint32_t i = 0; i < names->api_count[d]; i++)
			free(names->api[d][i]);
		free(names->api[d]);
	}
	for (size_t i = 0; i < names->kernel_capacity; i++)
		free(names->kernel_names[i]);
	free(names->kernel_ids);
	free(names->kernel_names);
	free(names);
}

void ct_context_destroy(struct ct_context *ctx)
{
	if (!ctx)
		return;
	for (size_t i = 0; i < ctx->process_count; i++) {
		struct ct_process *p = ctx->processes[i];

		for (int d = 0; d < 256; d++) {
			free(p->devices[d]);
			ct_gpu_timeline_free(p->busy[d]);
		}
		name_table_free(p->names);
		free(p);
	}
	free(ctx->processes);
	for (size_t i = 0; i < ctx->hostname_count; i++)
		free(ctx->hostnames[i]);
	free(ctx->hostnames);
	for (size_t b = 0; b < THREAD_BUCKETS; b++) {
		struct ct_thread *t, *next;

		for (t = ctx->thread_buckets[b]; t; t = next) {
			next = t->next;
			if (t->calls)
				g_array_unref(t->calls);
			free(t->stack);
			free(t);
		}
	}
	for (uint32_t i = 0; i < ctx->path_count; i++)
		free(ctx->paths[i].message);
	free(ctx->paths);
	free(ctx->path_index);
	free(ctx);
}

int ct_context_slot(struct ct_context *ctx)
{
	if (ctx->slots_used >= CT_SLOTS)
		return -1;
	return ctx->slots_used++;
}

/* ------------------------------------------------------------ processes */

static const char *intern_hostname(struct ct_context *ctx, const char *hostname)
{
	char **hostnames;
	char *copy;

	for (size_t i = 0; i < ctx->hostname_count; i++)
		if (!strcmp(ctx->hostnames[i], hostname))
			return ctx->hostnames[i];
	copy = strdup(hostname);
	hostnames = realloc(ctx->hostnames, (ctx->hostname_count + 1) * sizeof(*hostnames));
	if (!copy || !hostnames) {
		free(copy);
		if (hostnames)
			ctx->hostnames = hostnames;
		return NULL;
	}
	ctx->hostnames = hostnames;
	ctx->hostnames[ctx->hostname_count++] = copy;
	return copy;
}

static size_t process_bucket(const char *hostname, int64_t pid)
{
	return ((uint64_t)pid * 2654435761u ^ (uintptr_t)hostname >> 4) % PROCESS_BUCKETS;
}

static struct ct_process *process_new(struct ct_context *ctx, const char *hostname, int64_t pid)
{
	struct ct_process *p;

	if (ctx->process_count == ctx->process_capacity) {
		size_t capacity = ctx->process_capacity ? ctx->process_capacity * 2 : 8;
		struct ct_process **processes =
		    realloc(ctx->processes, capacity * sizeof(*processes));

		if (!processes)
			return NULL;
		ctx->processes = processes;
		ctx->process_capacity = capacity;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->names = calloc(1, sizeof(*p->names));
	if (!p->names) {
		free(p);
		return NULL;
	}
	p->index = (uint32_t)ctx->process_count;
	p->pid = pid;
	p->hostname = hostname;
	p->first_ns = INT64_MAX;
	p->last_ns = INT64_MIN;
	ctx->processes[ctx->process_count++] = p;
	return p;
}

struct ct_process *ct_context_process(struct ct_context *ctx, const char *hostname, int64_t pid)
{
	const char *host = intern_hostname(ctx, hostname ? hostname : "");
	size_t b;
	struct ct_process *p;

	if (!host)
		return NULL;
	b = process_bucket(host, pid);
	for (p = ctx->process_buckets[b]; p; p = p->hash_next)
		if (p->pid == pid && p->hostname == host)
			return p;
	p = process_new(ctx, host, pid);
	if (!p)
		return NULL;
	p->hash_next = ctx->process_buckets[b];
	ctx->process_buckets[b] = p;
	return p;
}

size_t ct_context_process_count(const struct ct_context *ctx)
{
	return ctx->process_count;
}

struct ct_process *ct_context_process_at(const struct ct_context *ctx, size_t i)
{
	return i < ctx->process_count ? ctx->processes[i] : NULL;
}

struct ct_device *ct_context_device(struct ct_process *process, unsigned ordinal)
{
	struct ct_device *d = process->devices[ordinal & 0xff];

	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return NULL;
		d->ordinal = (uint8_t)ordinal;
		process->devices[ordinal & 0xff] = d;
	}
	return d;
}

/* -------------------------------------------------------------- threads */

static size_t thread_bucket(const struct ct_process *process, int64_t tid)
{
	return ((uint64_t)tid * 2654435761u ^ process->index * 40503u) % THREAD_BUCKETS;
}

struct ct_thread *ct_context_thread(struct ct_context *ctx, struct ct_process *process, int64_t tid)
{
	size_t b = thread_bucket(process, tid);
	struct ct_thread *t;

	for (t = ctx->thread_buckets[b]; t; t = t->next)
		if (t->tid == tid && t->process == process)
			return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->process = process;
	t->tid = tid;
	t->next = ctx->thread_buckets[b];
	ctx->thread_buckets[b] = t;
	return t;
}

void ct_context_foreach_thread(struct ct_context *ctx, void (*fn)(struct ct_thread *, void *),
                               void *data)
{
	for (size_t b = 0; b < THREAD_BUCKETS; b++)
		for (struct ct_thread *t = ctx->thread_buckets[b]; t; t = t->next)
			fn(t, data);
}

static void free_thread_slot(struct ct_thread *thread, void *data)
{
	const int *slot = data;

	free(thread->slot[*slot]);
	thread->slot[*slot] = NULL;
}

void ct_context_free_thread_slots(struct ct_context *ctx, int slot)
{
	ct_context_foreach_thread(ctx, free_thread_slot, &slot);
}

/* ---------------------------------------------------------------- paths */

static uint32_t path_hash(uint32_t parent, const char *message)
{
	uint32_t h = 2166136261u ^ parent;

	for (const unsigned char *c = (const unsigned char *)message; *c; c++)
		h = (h ^ *c) * 16777619u;
	return h;
}

static int path_index_grow(struct ct_context *ctx)
{
	uint32_t capacity = ctx->path_index_capacity * 2;
	uint32_t *index = calloc(capacity, sizeof(*index));

	if (!index)
		return -1;
	for (uint32_t id = 1; id < ctx->path_count; id++) {
		const struct path_entry *e = &ctx->paths[id];
		uint32_t i = path_hash(e->parent, e->message) & (capacity - 1);

		while (index[i])
			i = (i + 1) & (capacity - 1);
		index[i] = id;
	}
	free(ctx->path_index);
	ctx->path_index = index;
	ctx->path_index_capacity = capacity;
	return 0;
}

/* A new path id for (parent, message); 0 when out of memory. */
static uint32_t path_add(struct ct_context *ctx, uint32_t parent, const char *message)
{
	struct path_entry *e;
	char *copy;

	CT_ASSERT(parent < ctx->path_count);
	if (ctx->path_count == ctx->path_capacity) {
		struct path_entry *paths =
		    realloc(ctx->paths, 2 * ctx->path_capacity * sizeof(*paths));

		if (!paths)
			return 0;
		ctx->paths = paths;
		ctx->path_capacity *= 2;
	}
	copy = strdup(message);
	if (!copy)
		return 0;
	e = &ctx->paths[ctx->path_count];
	e->parent = parent;
	e->depth = parent ? ctx->paths[parent].depth + 1 : 1;
	e->message = copy;
	return ctx->path_count++;
}

/* The id of (parent, message), interned on first sight; 0 when out of memory. */
static uint32_t path_intern(struct ct_context *ctx, uint32_t parent, const char *message)
{
	uint32_t mask, i, id;

	if (!message)
		message = "";
	if ((ctx->path_count + 1) * 2 > ctx->path_index_capacity && path_index_grow(ctx) < 0)
		return 0;
	mask = ctx->path_index_capacity - 1;
	for (i = path_hash(parent, message) & mask; ctx->path_index[i]; i = (i + 1) & mask) {
		const struct path_entry *e = &ctx->paths[ctx->path_index[i]];

		if (e->parent == parent && !strcmp(e->message, message))
			return ctx->path_index[i];
	}
	if (ctx->path_count >= CT_PATH_MAX) {
		if (!ctx->overflow_path)
			ctx->overflow_path = path_add(ctx, CT_PATH_NONE, "…");
		return ctx->overflow_path;
	}
	id = path_add(ctx, parent, message);
	if (id)
		ctx->path_index[i] = id;
	return id;
}

uint32_t ct_path_parent(const struct ct_context *ctx, uint32_t path)
{
	return path < ctx->path_count ? ctx->paths[path].parent : CT_PATH_NONE;
}

uint32_t ct_path_depth(const struct ct_context *ctx, uint32_t path)
{
	return path && path < ctx->path_count ? ctx->paths[path].depth : 0;
}

const char *ct_path_message(const struct ct_context *ctx, uint32_t path)
{
	return path && path < ctx->path_count ? ctx->paths[path].message : "";
}

uint32_t ct_path_count(const struct ct_context *ctx)
{
	return ctx->path_count;
}

int ct_path_contains(const struct ct_context *ctx, uint32_t path, const char *message)
{
	for (; path && path < ctx->path_count; path = ctx->paths[path].parent)
		if (!strcmp(ctx->paths[path].message, message))
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
	for (; path && path < ctx->path_count && n < 256; path = ctx->paths[path].parent)
		chain[n++] = path;
	while (n-- > 0) {
		int w = snprintf(buf + used, len - used, "%s%s", used ? "/" : "",
		                 ctx->paths[chain[n]].message);

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

/* ---------------------------------------------------------------- names */

static int set_api_name(struct ct_name_table *names, unsigned domain, unsigned cbid,
                        const char *name)
{
	char *copy;

	if (domain < 1 || domain > 2 || cbid > 65535)
		return 0;
	if (cbid >= names->api_count[domain]) {
		uint32_t count = cbid + 64;
		char **api = realloc(names->api[domain], count * sizeof(*api));

		if (!api)
			return -1;
		memset(api + names->api_count[domain], 0,
		       (count - names->api_count[domain]) * sizeof(*api));
		names->api[domain] = api;
		names->api_count[domain] = count;
	}
	copy = strdup(name ? name : "");
	if (!copy)
		return -1;
	ct_api_name_normalize(copy);
	free(names->api[domain][cbid]);
	names->api[domain][cbid] = copy;
	return 0;
}

const char *ct_context_api_name(const struct ct_process *process, unsigned domain, unsigned cbid)
{
	const struct ct_name_table *names = process ? process->names : NULL;

	if (names && domain >= 1 && domain <= 2 && cbid < names->api_count[domain] &&
	    names->api[domain][cbid])
		return names->api[domain][cbid];
	return ct_cupti_cbid_name(domain, cbid);
}

static size_t kernel_slot(const struct ct_name_table *names, uint64_t id)
{
	size_t mask = names->kernel_capacity - 1;
	size_t i = (size_t)(id ^ id >> 29) & mask;

	while (names->kernel_ids[i] && names->kernel_ids[i] != id)
		i = (i + 1) & mask;
	return i;
}

static int kernel_table_grow(struct ct_name_table *names)
{
	struct ct_name_table old = *names;
	size_t capacity = old.kernel_capacity ? old.kernel_capacity * 2 : 64;

	names->kernel_ids = calloc(capacity, sizeof(*names->kernel_ids));
	names->kernel_names = calloc(capacity, sizeof(*names->kernel_names));
	if (!names->kernel_ids || !names->kernel_names) {
		free(names->kernel_ids);
		free(names->kernel_names);
		names->kernel_ids = old.kernel_ids;
		names->kernel_names = old.kernel_names;
		return -1;
	}
	names->kernel_capacity = capacity;
	for (size_t i = 0; i < old.kernel_capacity; i++) {
		if (old.kernel_ids[i]) {
			size_t j = kernel_slot(names, old.kernel_ids[i]);

			names->kernel_ids[j] = old.kernel_ids[i];
			names->kernel_names[j] = old.kernel_names[i];
		}
	}
	free(old.kernel_ids);
	free(old.kernel_names);
	return 0;
}

static int set_kernel_name(struct ct_name_table *names, uint64_t id, const char *name)
{
	size_t i;
	char *copy;

	/* id 0 would read as an empty slot; FNV-1a never gives it for a real name */
	if (!id)
		return 0;
	if ((names->kernel_count + 1) * 2 > names->kernel_capacity && kernel_table_grow(names) < 0)
		return -1;
	copy = strdup(name ? name : "");
	if (!copy)
		return -1;
	i = kernel_slot(names, id);
	if (!names->kernel_ids[i])
		names->kernel_count++;
	names->kernel_ids[i] = id;
	free(names->kernel_names[i]);
	names->kernel_names[i] = copy;
	return 0;
}

const char *ct_context_kernel_name(const struct ct_process *process, uint64_t kernel_id)
{
	const struct ct_name_table *names = process ? process->names : NULL;
	size_t i;

	if (!names || !names->kernel_capacity || !kernel_id)
		return NULL;
	i = kernel_slot(names, kernel_id);
	return names->kernel_ids[i] ? names->kernel_names[i] : NULL;
}

/* --------------------------------------------------------------- update */

static int nvtx_push(struct ct_context *ctx, struct ct_event *ev)
{
	struct ct_thread *t = ev->thread;
	uint32_t parent = t->depth ? t->stack[t->depth - 1].path : CT_PATH_NONE;
	uint32_t path = path_intern(ctx, parent, ev->u.nvtx_message.message);

	if (!path)
		return -1;
	if (t->depth == t->capacity) {
		uint32_t capacity = t->capacity ? t->capacity * 2 : 8;
		struct ct_nvtx_frame *stack = realloc(t->stack, capacity * sizeof(*stack));

		if (!stack)
			return -1;
		t->stack = stack;
		t->capacity = capacity;
	}
	t->stack[t->depth] = (struct ct_nvtx_frame){
		.domain = ev->u.nvtx_message.domain,
		.path = path,
		.open_seq = ev->seq,
		.open_ns = ev->time_ns,
	};
	ev->nvtx.path = path;
	ev->nvtx.depth = t->depth++;
	return 0;
}

static int nvtx_pop(struct ct_event *ev)
{
	struct ct_thread *t = ev->thread;
	uint32_t i = t->depth;

	/* a pop closes the last push of the same domain on the thread */
	while (i > 0 && t->stack[i - 1].domain != ev->u.nvtx_pop.domain)
		i--;
	if (i == 0)
		return 1;
	i--;
	CT_ASSERT_DBG(i < t->depth);
	ev->nvtx.path = t->stack[i].path;
	ev->nvtx.depth = i;
	memmove(&t->stack[i], &t->stack[i + 1], (t->depth - i - 1) * sizeof(*t->stack));
	t->depth--;
	return 0;
}

static int update_device_info(struct ct_event *ev)
{
	const struct ct_ev_device_info *e = &ev->u.device_info;
	struct ct_device *d = ct_context_device(ev->process, e->device);

	if (!d)
		return -1;
	snprintf(d->name, sizeof(d->name), "%s", e->name ? e->name : "");
	d->global_memory = e->global_memory;
	d->memory_bandwidth = e->memory_bandwidth;
	d->cc_major = e->cc_major;
	d->cc_minor = e->cc_minor;
	return 0;
}

static int update_nvml(struct ct_event *ev)
{
	const struct ct_ev_nvml_sample *e = &ev->u.nvml_sample;
	struct ct_device *d = ct_context_device(ev->process, e->device);

	if (!d)
		return -1;
	d->nvml_time_ns = ev->time_ns;
	d->nvml_free = e->free;
	d->nvml_used = e->used;
	d->nvml_total = e->total;
	if (!d->global_memory)
		d->global_memory = e->total;
	return 0;
}

static void update_tracer_info(struct ct_event *ev)
{
	const struct ct_ev_tracer_info *e = &ev->u.tracer_info;
	struct ct_process *p = ev->process;

	snprintf(p->tracer_version, sizeof(p->tracer_version), "%s", e->version ? e->version : "");
	/* a session without the procname context still names the process */
	if (!p->procname[0] && e->procname)
		snprintf(p->procname, sizeof(p->procname), "%s", e->procname);
	p->cupti_version = e->cupti_version;
	p->driver_version = e->driver_version;
}

int ct_context_update(struct ct_context *ctx, struct ct_event *ev)
{
	struct ct_process *p = ev->process;
	struct ct_thread *t = ev->thread;
	int ret = 0;

	p->events++;
	if (ev->time_ns < p->first_ns)
		p->first_ns = ev->time_ns;
	if (ev->time_ns > p->last_ns)
		p->last_ns = ev->time_ns;
	switch (ev->type) {
	case CT_EV_API_NAME:
		ret = set_api_name(p->names, ev->u.api_name.domain, ev->u.api_name.cbid,
		                   ev->u.api_name.name);
		break;
	case CT_EV_KERNEL_NAME:
		ret =
		    set_kernel_name(p->names, ev->u.kernel_name.kernel_id, ev->u.kernel_name.name);
		break;
	case CT_EV_NVTX_PUSH:
		ret = nvtx_push(ctx, ev);
		break;
	case CT_EV_NVTX_POP:
		ret = nvtx_pop(ev);
		break;
	case CT_EV_DEVICE_INFO:
		ret = update_device_info(ev);
		break;
	case CT_EV_NVML_SAMPLE:
		ret = update_nvml(ev);
		break;
	case CT_EV_TRACER_INFO:
		update_tracer_info(ev);
		break;
	default:
		break;
	}
	ev->site = t->depth ? t->stack[t->depth - 1].path : CT_PATH_NONE;
	CT_ASSERT_DBG(ev->site < ctx->path_count);
	return ret;
}
