/* SPDX-License-Identifier: MIT */
/*
 * transfers.c - the transfers analysis: host<->device copies grouped by
 * call site (process, thread, NVTX range path, API), device, direction,
 * pinned or pageable host memory, synchronous or not, and size class; for
 * each group the count, bytes, GPU time, achieved bandwidth (against the
 * best seen in that direction and the device's peak where known) and host
 * time; the groups ranked by the time they cost; and findings: async
 * copies from pageable memory, storms of small copies, the same host
 * buffer uploaded again and again, downloads uploaded back, synchronous
 * copies that leave the GPU idle.
 *
 * Joins: a memcpy event (at the call's exit) records its call, read in the
 * pass (api-calls.h: host time = exit - entry, both on the event); the
 * reader joins it to its gpu_memcpy record (GPU time), which has the group
 * and host time the analysis noted on the memcpy (ct_event.note). A record
 * that comes before its memcpy waits for it in a correlation map. What a copy
 * costs is the longer of the two: the host's wait for a copy that blocks,
 * the copy engine's time for one that does not. A copy a graph launch
 * replays has no memcpy event: its record, of the graph_launch's
 * correlation id, is a copy of the launch's site, timed by the record
 * alone (the kernels analysis counts the kernels it replays alike). How
 * idle the device sat while the host waited for a blocking copy is asked
 * of the pass's busy timeline of that device (gpu-activity.h).
 *
 * Memory: groups grow with distinct call sites; copies waiting for their
 * GPU record and the upload and download tables have fixed caps. Nothing
 * grows with the length of the trace.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "contract/assert.h"
#include "contract/mix64.h"
#include "common/corr-map.h"
#include "model/gpu-activity.h"
#include "common/saturate.h"
#include "transfers.h"

/* Size classes: < 4 KiB, then ×16 each, the last open-ended. */
#define SIZE_CLASSES 6
/* Copies below this are small (the first two classes). */
#define SMALL_COPY_BYTES (64u * 1024)
/* A storm: at least this many small copies from one site ... */
#define STORM_MIN_COPIES 256
/* ... at most this far apart on average. */
#define STORM_MAX_INTERVAL_NS 1000000
/* A host buffer uploaded this many times is uploaded "again and again". */
#define REPEAT_MIN_UPLOADS 4
/* Synchronous copies of a site leave the GPU idle when it is idle this long ... */
#define IDLE_MIN_NS 100000
/* ... and for at least this share of the time the host waited. */
#define IDLE_MIN_SHARE 0.5
/* Only copies this large count for the best bandwidth seen (small ones measure latency). */
#define BEST_MIN_BYTES (64u * 1024)

/* Upload table: sets of ways, per process. */
#define UPLOAD_SETS 1024u
#define UPLOAD_WAYS 4u
/* Download table: recent device-to-host copies by host address, per process. */
#define DOWNLOAD_SLOTS 4096u

/* What a hotspot groups by. Zeroed before filling, so it compares with memcmp. */
struct xfer_key {
	int64_t tid;
	uint64_t stack_id; /* its thread's op_stack_id (context.h): its call site */
	uint32_t process;  /* ct_process.index */
	uint32_t path;     /* NVTX path */
	uint8_t api_domain;
	uint8_t direction;
	uint16_t api_cbid;
	uint8_t host;
	uint8_t sync;
	uint8_t size_class;
	uint8_t device;
};

_Static_assert(sizeof(struct xfer_key) == 32,
               "a key has no padding: it is hashed and compared as bytes");
_Static_assert(CT_ENUM_COUNT(direction) <= UINT8_MAX && CT_ENUM_COUNT(host_mem) <= UINT8_MAX,
               "directions and host memory kinds are kept in 8 bits");

/* One hotspot: the copies of one key. */
struct xfer_group {
	uint32_t index; /* in the analysis's groups */
	struct xfer_key key;
	struct ct_process *process; /* borrowed from the context */
	uint64_t count;
	uint64_t bytes;
	int64_t first_ns;
	int64_t last_ns;
	uint64_t gpu_count; /* copies whose GPU record came */
	uint64_t gpu_bytes;
	int64_t gpu_ns;
	uint64_t host_count; /* copies whose call was timed */
	int64_t host_ns;
	int64_t cost_ns;
	uint64_t probed;      /* blocking copies whose window the GPU timeline answered */
	int64_t blocked_ns;   /* their windows */
	int64_t gpu_idle_ns;  /* the part of those windows the device did nothing */
	uint64_t round_trips; /* uploads of bytes just downloaded */
	uint64_t round_trip_bytes;
	uint32_t round_trip_from; /* group of the download, for the finding */
};

/* A copy, as its memcpy leaves it for its GPU record (ct_event.note: group, host_ns). */
struct xfer_pending {
	uint32_t group;
	int64_t host_ns; /* -1: not timed */
	int64_t gpu_ns;  /* -1: no record yet */
};

/*
 * A graph launch, for the copies it replays: each has a GPU record of the
 * launch's correlation id and no memcpy event, and is a copy of the
 * launch's site. A launch replays any number of copies, so its entry waits
 * until the map needs the slot (corr-map.h): bounded by CT_CORR_MAP_MAX.
 */
struct xfer_graph_launch {
	struct ct_corr_entry head;
	int64_t tid;
	uint64_t stack_id;
	uint32_t path; /* NVTX path */
	uint8_t api_domain;
	uint16_t api_cbid;
};

/*
 * A host buffer uploaded, for the repeated-upload finding. The tracer
 * samples what an upload sends (the memcpy event's sample): a buffer
 * refilled between its uploads, as a data loader's staging buffer is,
 * sends other bytes each time, and only uploads in a row that send the
 * same bytes, as far as known, could have been left out.
 */
struct upload {
	uint64_t address;
	uint64_t bytes;
	uint64_t count;                 /* its uploads; 0: free way */
	uint64_t sample;                /* of the last upload; 0: not sampled */
	uint64_t run;                   /* the last uploads in a row that sent the same bytes */
	uint64_t best;                  /* the longest such run */
	bool run_sampled, best_sampled; /* every upload after a run's first had a sample */
	uint32_t group;                 /* of the last upload */
	int64_t first_ns;
	int64_t last_ns;
	/*
	 * It took the way of a buffer the table forgot: uploads of it before
	 * may have been forgotten too, and COUNT is the least it was uploaded.
	 * (A set's ways are never freed, so one that ever forgot is full, and
	 * every newcomer to it after that forgets another buffer.)
	 */
	bool at_least;
};

/* A device-to-host copy, for the round-trip finding. */
struct download {
	uint64_t address;
	uint64_t bytes; /* 0: free slot */
	uint32_t group;
};

/*
 * A gpu_memcpy record that came before its memcpy event: the tracer
 * writes a record whole when its copy's host event is not yet in the
 * trace (a copy that ended, and whose buffer was flushed, before its call
 * returned), and the event follows. It waits for the event by the id the
 * event has (the runtime's, when the copy was a runtime call's); if the
 * trace ends first, it is a graph launch's copy or a record without copy.
 */
struct xfer_early {
	struct ct_corr_entry head;
	struct ct_event ev; /* the record */
};

/* Per-process state, in the process's slot. Owned by the analysis. */
struct xfer_process {
	struct transfers *transfers; /* borrowed: the analysis */
	struct ct_process *process;  /* borrowed */
	struct ct_corr_map graphs;   /* of struct xfer_graph_launch */
	struct ct_corr_map early;    /* of struct xfer_early */
	struct upload *uploads;      /* owned, UPLOAD_SETS × UPLOAD_WAYS, or NULL */
	struct download *downloads;  /* owned, DOWNLOAD_SLOTS, or NULL */
	/* A download not yet sent back was forgotten for another's slot:
	 * the process's round trips are the least there were. */
	bool downloads_forgotten;
};

struct transfers {
	struct ct_context *ctx;        /* borrowed */
	const struct ct_options *opts; /* borrowed */
	int slot;
	GPtrArray *groups;  /* struct xfer_group, by index (its number); owned */
	GHashTable *by_key; /* struct xfer_key (the group's) -> its group; borrowed */
	/* Best per-copy bandwidth seen, by device and direction (bytes/s). */
	double best[256][CT_ENUM_COUNT(direction)];
	uint64_t copies;
	uint64_t memcpys;       /* memcpy events (the copies graph launches replay have none) */
	uint64_t joined;        /* memcpy events joined to their record */
	uint64_t unmatched_gpu; /* gpu_memcpy records with no memcpy event */
	uint64_t gpu_records;
	uint64_t end_unknown; /* records of copies still running at a forced flush */
	/* The groups of the last keys looked up (group_of), the older one
	 * replaced next: a loop's copies repeat one key, or alternate an
	 * upload's and a download's, and find their group with a comparison
	 * rather than a hash and a look in by_key. */
	struct {
		struct xfer_key key;
		uint32_t group;
		bool used;
	} recent[2];
	unsigned recent_next;
	struct ct_transfers_result result; /* owned, once computed */
};

static const char *const size_class_names[SIZE_CLASSES] = {
	"<4KiB", "4KiB-64KiB", "64KiB-1MiB", "1MiB-16MiB", "16MiB-256MiB", ">=256MiB",
};

static unsigned size_class_of(uint64_t bytes)
{
	unsigned c = 0;
	uint64_t limit = 4096;

	while (c < SIZE_CLASSES - 1 && bytes >= limit) {
		c++;
		limit *= 16;
	}
	return c;
}

/* Its copies are under CT_TRANSFERS_SMALL_BYTES. */
static bool is_small_class(unsigned size_class)
{
	return size_class < 2;
}

/* ------------------------------------------------------------- state */

static struct xfer_process *xfer_process_of(struct transfers *t, struct ct_process *process)
{
	struct xfer_process *xp = process->slot[t->slot];

	if (xp)
		return xp;
	xp = g_new0(struct xfer_process, 1);
	xp->transfers = t;
	xp->process = process;
	ct_corr_map_init(&xp->graphs, sizeof(struct xfer_graph_launch));
	ct_corr_map_init(&xp->early, sizeof(struct xfer_early));
	process->slot[t->slot] = xp;
	return xp;
}

static void answer_probe(void *data, const struct ct_gpu_probe *probe);

/* ------------------------------------------------------------ groups */

static struct xfer_group *group_at(const struct transfers *t, uint32_t i)
{
	CT_ASSERT_DBG(i < t->groups->len);
	return g_ptr_array_index(t->groups, i);
}

/* The key's four words mixed: every copy looks its group up, and a byte
 * loop cost more than the lookup. */
static guint key_hash(gconstpointer key)
{
	uint64_t w[sizeof(struct xfer_key) / sizeof(uint64_t)], h = 0;

	memcpy(w, key, sizeof(w));
	for (size_t i = 0; i < G_N_ELEMENTS(w); i++)
		h = ct_mix64(h ^ w[i]);
	return (guint)h;
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	return !memcmp(a, b, sizeof(struct xfer_key));
}

/* The number of KEY's group, created on first use. */
static uint32_t group_of(struct transfers *t, const struct xfer_key *key,
                         struct ct_process *process)
{
	struct xfer_group *g;

	for (size_t i = 0; i < G_N_ELEMENTS(t->recent); i++) {
		if (t->recent[i].used && key_equal(&t->recent[i].key, key))
			return t->recent[i].group;
	}
	g = g_hash_table_lookup(t->by_key, key);
	if (!g) {
		g = g_new0(struct xfer_group, 1);
		g->index = t->groups->len;
		g->key = *key;
		g->process = process;
		g_ptr_array_add(t->groups, g);
		g_hash_table_insert(t->by_key, &g->key, g);
	}
	t->recent[t->recent_next].key = *key;
	t->recent[t->recent_next].group = g->index;
	t->recent[t->recent_next].used = true;
	t->recent_next = (t->recent_next + 1) % G_N_ELEMENTS(t->recent);
	return g->index;
}

/* The device that runs a copy: the destination's for uploads, else the source's. */
static uint8_t copy_device(const struct ct_ev_memcpy *e)
{
	if (e->direction == CT_DIR_HTOD || e->src_device == CT_DEVICE_NONE)
		return e->dst_device;
	return e->src_device;
}

/*
 * Host<->device copies the host waits for: synchronous ones, and async ones
 * from pageable memory. (A synchronous device-to-device copy returns before
 * it is done, and a host-to-host one involves no GPU.)
 */
static bool blocking_copy(unsigned direction, unsigned host, bool sync)
{
	if (direction != CT_DIR_HTOD && direction != CT_DIR_DTOH)
		return false;
	return sync || host == CT_HOST_PAGEABLE;
}

/* ------------------------------------------------------------- costs */

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* A copy costs the longer of its host time and its GPU time. */
static int64_t copy_cost(int64_t host_ns, int64_t gpu_ns)
{
	return max64(max64(host_ns, 0), max64(gpu_ns, 0));
}

static void set_host_time(struct transfers *t, struct xfer_pending *p, int64_t host_ns)
{
	CT_ASSERT_DBG(p->group < t->groups->len);
	group_at(t, p->group)->cost_ns =
	    ct_sat_add(group_at(t, p->group)->cost_ns,
	               copy_cost(host_ns, p->gpu_ns) - copy_cost(p->host_ns, p->gpu_ns));
	p->host_ns = host_ns;
}

static void set_gpu_time(struct transfers *t, struct xfer_pending *p, int64_t gpu_ns)
{
	CT_ASSERT_DBG(p->group < t->groups->len);
	group_at(t, p->group)->cost_ns =
	    ct_sat_add(group_at(t, p->group)->cost_ns,
	               copy_cost(p->host_ns, gpu_ns) - copy_cost(p->host_ns, p->gpu_ns));
	p->gpu_ns = gpu_ns;
}

/* ------------------------------------------------ uploads, downloads */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	return x;
}

/* The upload of SAMPLE sends what the one of LAST sent, as far as known. */
static bool same_bytes(uint64_t last, uint64_t sample)
{
	return !last || !sample || last == sample;
}

/* Counts another upload of U's buffer, which sends what SAMPLE sampled. */
static void upload_again(struct upload *u, uint64_t sample)
{
	u->count++;
	if (same_bytes(u->sample, sample)) {
		u->run++;
		u->run_sampled = u->run_sampled && u->sample && sample;
	} else {
		u->run = 1;
		u->run_sampled = true;
	}
	if (u->run > u->best) {
		u->best = u->run;
		u->best_sampled = u->run_sampled;
	}
	u->sample = sample;
}

/*
 * Counts an upload of [address, address + bytes). The table keeps the
 * buffers uploaded most often: a newcomer takes the least-used way of its
 * set, so a buffer uploaded again and again stays while one-off uploads
 * come and go.
 */
static void note_upload(struct transfers *t, struct xfer_process *xp, const struct ct_event *ev,
                        uint32_t group)
{
	const struct ct_ev_memcpy *e = &ev->u.memcpy;
	struct upload *set, *least;

	if (!xp->uploads)
		xp->uploads = g_new0(struct upload, UPLOAD_SETS * UPLOAD_WAYS);
	set = &xp->uploads[(mix(e->src ^ mix(e->bytes)) % UPLOAD_SETS) * UPLOAD_WAYS];
	least = &set[0];
	for (unsigned w = 0; w < UPLOAD_WAYS; w++) {
		if (set[w].count && set[w].address == e->src && set[w].bytes == e->bytes) {
			upload_again(&set[w], e->sample);
			set[w].group = group;
			set[w].last_ns = ev->time_ns;
			return;
		}
		if (set[w].count < least->count)
			least = &set[w];
	}
	*least = (struct upload){ .address = e->src,
		                  .bytes = e->bytes,
		                  .count = 1,
		                  .sample = e->sample,
		                  .run = 1,
		                  .best = 1,
		                  .run_sampled = true,
		                  .best_sampled = true,
		                  .group = group,
		                  .first_ns = ev->time_ns,
		                  .last_ns = ev->time_ns,
		                  .at_least = least->count > 0 };
}

static struct download *download_slot(struct xfer_process *xp, uint64_t address)
{
	return &xp->downloads[mix(address) % DOWNLOAD_SLOTS];
}

static void note_download(struct transfers *t, struct xfer_process *xp,
                          const struct ct_ev_memcpy *e, uint32_t group)
{
	struct download *d;

	if (!xp->downloads)
		xp->downloads = g_new0(struct download, DOWNLOAD_SLOTS);
	d = download_slot(xp, e->dst);
	/*
	 * Another buffer's download not yet sent back is forgotten. (The same
	 * buffer filled again is no loss: its last fill cannot come back.)
	 */
	if (d->bytes && d->address != e->dst)
		xp->downloads_forgotten = true;
	*d = (struct download){ e->dst, e->bytes, group };
}

/* An upload of exactly the bytes a download just brought to the host. */
static void check_round_trip(struct transfers *t, struct xfer_process *xp,
                             const struct ct_ev_memcpy *e, uint32_t group)
{
	struct download *d;

	if (!xp->downloads)
		return;
	d = download_slot(xp, e->src);
	if (!d->bytes || d->address != e->src || d->bytes != e->bytes)
		return;
	group_at(t, group)->round_trips++;
	group_at(t, group)->round_trip_bytes =
	    ct_sat_add_u64(group_at(t, group)->round_trip_bytes, e->bytes);
	group_at(t, group)->round_trip_from = d->group;
	d->bytes = 0;
}

/* ------------------------------------------------------------ events */

/* The copy's call returned: its host time and its window are known. */
static void time_copy(struct transfers *t, struct ct_process *process, struct xfer_pending *p,
                      const struct ct_ev_memcpy *e, const struct ct_api_call *call)
{
	struct xfer_group *g = group_at(t, p->group);
	int64_t host_ns = ct_sat_sub(call->exit_ns, call->entry_ns);

	g->host_count++;
	g->host_ns = ct_sat_add(g->host_ns, host_ns);
	set_host_time(t, p, host_ns);
	if (blocking_copy(e->direction, e->host, e->sync) && g->key.device != CT_DEVICE_NONE) {
		struct ct_gpu_timeline *tl =
		    ct_gpu_activity_timeline(process, g->key.device, t->opts->series_points);

		ct_gpu_timeline_probe(tl, call->entry_ns, call->exit_ns, answer_probe, t, p->group);
	}
}

static void fill_key(struct xfer_key *key, const struct ct_event *ev)
{
	const struct ct_ev_memcpy *e = &ev->u.memcpy;

	memset(key, 0, sizeof(*key));
	key->tid = ev->thread->tid;
	key->stack_id = ev->thread->op_stack_id;
	key->process = ev->process->index;
	key->path = ev->site;
	key->api_domain = e->api.domain;
	key->api_cbid = e->api.cbid;
	key->direction = e->direction < CT_ENUM_COUNT(direction) ? e->direction : CT_DIR_UNKNOWN;
	key->host = e->host < CT_ENUM_COUNT(host_mem) ? e->host : CT_HOST_NONE;
	key->sync = e->sync ? 1 : 0;
	key->size_class = (uint8_t)size_class_of(e->bytes);
	key->device = copy_device(e);
}

static void join_record(struct transfers *t, struct xfer_pending *p,
                        const struct ct_ev_gpu_memcpy *r);

static void on_memcpy(struct transfers *t, const struct ct_event *ev)
{
	const struct ct_ev_memcpy *e = &ev->u.memcpy;
	struct xfer_process *xp = xfer_process_of(t, ev->process);
	struct xfer_early *early;
	struct xfer_pending copy;
	struct xfer_group *g;
	struct xfer_key key;
	uint32_t group;

	fill_key(&key, ev);
	group = group_of(t, &key, ev->process);
	g = group_at(t, group);
	if (!g->count)
		g->first_ns = ev->time_ns;
	g->count++;
	g->bytes = ct_sat_add_u64(g->bytes, e->bytes);
	g->last_ns = ev->time_ns;
	t->copies++;
	t->memcpys++;
	copy = (struct xfer_pending){ .group = group, .host_ns = -1, .gpu_ns = -1 };
	if (ev->has_call)
		time_copy(t, ev->process, &copy, e, &ev->call);
	if (e->direction == CT_DIR_HTOD) {
		check_round_trip(t, xp, e, group);
		note_upload(t, xp, ev, group);
	} else if (e->direction == CT_DIR_DTOH) {
		note_download(t, xp, e, group);
	}
	/* the record that came before it; else the reader joins the one to come */
	early = ct_corr_map_waiting(&xp->early)
	            ? ct_corr_map_find(&xp->early, e->api.correlation_id)
	            : NULL;
	if (early) {
		join_record(t, &copy, &early->ev.u.gpu_memcpy);
		ct_corr_map_remove(&xp->early, early);
	} else if (ev->note) {
		ev->note[0] = copy.group;
		ev->note[1] = (uint64_t)copy.host_ns;
	}
}

static void note_best(struct transfers *t, const struct ct_ev_gpu_memcpy *r, int64_t gpu_ns)
{
	unsigned direction =
	    r->direction < CT_ENUM_COUNT(direction) ? r->direction : CT_DIR_UNKNOWN;
	double bandwidth;

	if (r->bytes < BEST_MIN_BYTES || gpu_ns <= 0)
		return;
	bandwidth = (double)r->bytes * 1e9 / (double)gpu_ns;
	if (bandwidth > t->best[r->device][direction])
		t->best[r->device][direction] = bandwidth;
}

/* The host memory of a copy CUPTI's record describes: its src_kind or dst_kind, a
 * CUpti_ActivityMemoryKind (doc/events.md: 1 pageable, 2 pinned). */
static uint8_t record_host(const struct ct_ev_gpu_memcpy *r)
{
	unsigned kind = r->direction == CT_DIR_HTOD   ? r->src_kind
	                : r->direction == CT_DIR_DTOH ? r->dst_kind
	                                              : 0;

	return kind == 1 ? CT_HOST_PAGEABLE : kind == 2 ? CT_HOST_PINNED : CT_HOST_NONE;
}

static void on_graph_launch(struct transfers *t, const struct ct_event *ev)
{
	const struct ct_ev_graph_launch *e = &ev->u.graph_launch;
	struct xfer_graph_launch *launch = ct_corr_map_insert(
	    &xfer_process_of(t, ev->process)->graphs, e->api.correlation_id, ev->time_ns);

	launch->tid = ev->thread->tid;
	launch->stack_id = ev->thread->op_stack_id;
	launch->path = ev->site;
	launch->api_domain = e->api.domain;
	launch->api_cbid = e->api.cbid;
}

/*
 * A copy graph launch LAUNCH replayed, of GPU record EV: a copy of the
 * launch's site, as the kernels it replays are kernels; asynchronous (the
 * launch does not wait for it), timed by its record alone. GPU_NS < 0: its
 * end is unknown.
 */
static void count_graph_copy(struct transfers *t, const struct ct_event *ev,
                             const struct xfer_graph_launch *launch, int64_t gpu_ns)
{
	const struct ct_ev_gpu_memcpy *r = &ev->u.gpu_memcpy;
	struct xfer_group *g;
	struct xfer_key key;

	memset(&key, 0, sizeof(key));
	key.tid = launch->tid;
	key.stack_id = launch->stack_id;
	key.process = ev->process->index;
	key.path = launch->path;
	key.api_domain = launch->api_domain;
	key.api_cbid = launch->api_cbid;
	key.direction = r->direction < CT_ENUM_COUNT(direction) ? r->direction : CT_DIR_UNKNOWN;
	key.host = record_host(r);
	key.size_class = (uint8_t)size_class_of(r->bytes);
	key.device = r->device;
	g = group_at(t, group_of(t, &key, ev->process));
	if (!g->count)
		g->first_ns = r->start ? (int64_t)r->start : ev->time_ns;
	g->count++;
	g->bytes = ct_sat_add_u64(g->bytes, r->bytes);
	g->last_ns = r->start ? (int64_t)r->start : ev->time_ns;
	t->copies++;
	if (gpu_ns < 0) {
		t->end_unknown++;
		return;
	}
	g->gpu_count++;
	g->gpu_bytes = ct_sat_add_u64(g->gpu_bytes, r->bytes);
	g->gpu_ns = ct_sat_add(g->gpu_ns, gpu_ns);
	g->cost_ns = ct_sat_add(g->cost_ns, gpu_ns);
}

/* Record R of copy P. */
static void join_record(struct transfers *t, struct xfer_pending *p,
                        const struct ct_ev_gpu_memcpy *r)
{
	int64_t gpu_ns = r->end > r->start && r->start ? ct_sat_i64(r->end - r->start) : 0;
	struct xfer_group *g;

	t->joined++;
	/* its record came without an end (the reader's check_gpu_end): a copy, of no known
	 * GPU time, that neither its group's GPU time nor its bandwidth can count */
	if (!r->start || !r->end) {
		t->end_unknown++;
		return;
	}
	g = group_at(t, p->group);
	g->gpu_count++;
	g->gpu_bytes = ct_sat_add_u64(g->gpu_bytes, r->bytes);
	g->gpu_ns = ct_sat_add(g->gpu_ns, gpu_ns);
	set_gpu_time(t, p, gpu_ns);
}

/* Record EV, whose copy has no memcpy event (now, or at the trace's end:
 * LAST): a graph launch's copy, or a record without copy. */
static void record_alone(struct transfers *t, struct xfer_process *xp, const struct ct_event *ev,
                         bool last)
{
	const struct ct_ev_gpu_memcpy *r = &ev->u.gpu_memcpy;
	int64_t gpu_ns = r->end > r->start && r->start ? ct_sat_i64(r->end - r->start) : 0;
	const struct xfer_graph_launch *launch = ct_corr_map_find(&xp->graphs, r->correlation_id);
	uint32_t id = r->runtime_correlation_id ? r->runtime_correlation_id : r->correlation_id;
	struct xfer_early *early;

	if (launch) {
		count_graph_copy(t, ev, launch, r->start && r->end ? gpu_ns : -1);
		return;
	}
	/* a second record of one id does not wait: the first does */
	if (last || ct_corr_map_find(&xp->early, id)) {
		t->unmatched_gpu++;
		return;
	}
	early = ct_corr_map_insert(&xp->early, id, ev->time_ns);
	early->ev = *ev;
}

static void on_gpu_memcpy(struct transfers *t, const struct ct_event *ev)
{
	const struct ct_ev_gpu_memcpy *r = &ev->u.gpu_memcpy;
	int64_t gpu_ns = r->end > r->start && r->start ? ct_sat_i64(r->end - r->start) : 0;

	t->gpu_records++;
	note_best(t, r, gpu_ns);
	/* its memcpy's note: a group of this analysis, unless none was left */
	if (ev->joined && ev->note[0] < t->groups->len) {
		struct xfer_pending copy = {
			.group = (uint32_t)ev->note[0],
			.host_ns = (int64_t)ev->note[1],
			.gpu_ns = -1,
		};

		join_record(t, &copy, r);
		return;
	}
	record_alone(t, xfer_process_of(t, ev->process), ev, false);
}

static void transfers_event(void *state, const struct ct_event *ev)
{
	struct transfers *t = state;

	switch (ev->type) {
	case CT_EV_MEMCPY:
		on_memcpy(t, ev);
		break;
	case CT_EV_GPU_MEMCPY:
		on_gpu_memcpy(t, ev);
		break;
	case CT_EV_GRAPH_LAUNCH:
		on_graph_launch(t, ev);
		break;
	default:
		break;
	}
}

/* A blocking copy's window is answered: how much of it the device sat idle. */
static void answer_probe(void *data, const struct ct_gpu_probe *probe)
{
	struct transfers *t = data;
	struct xfer_group *g;
	int64_t window = probe->end - probe->start;

	CT_ASSERT_DBG(probe->tag < t->groups->len);
	g = group_at(t, probe->tag);
	/* no GPU work at all in the window: the trace has no GPU records to judge by */
	if (probe->busy_ns <= 0)
		return;
	g->probed++;
	g->blocked_ns = ct_sat_add(g->blocked_ns, window);
	g->gpu_idle_ns =
	    ct_sat_add(g->gpu_idle_ns, window > probe->busy_ns ? window - probe->busy_ns : 0);
}

/* ------------------------------------------------------------ finish */

static void early_alone(void *entry, void *data)
{
	struct xfer_process *xp = data;
	const struct xfer_early *early = entry;

	record_alone(xp->transfers, xp, &early->ev, true);
}

static enum ct_analysis_status transfers_finish(void *state, int64_t end_ns)
{
	struct transfers *t = state;

	(void)end_ns;
	/* the records still waiting: their copy's event is not in the trace */
	for (size_t p = 0; p < ct_context_process_count(t->ctx); p++) {
		struct xfer_process *xp = ct_context_process_at(t->ctx, p)->slot[t->slot];

		if (!xp)
			continue;
		ct_corr_map_foreach(&xp->early, early_alone, xp);
		t->unmatched_gpu += xp->early.evicted;
		ct_corr_map_release(&xp->early);
		ct_corr_map_init(&xp->early, sizeof(struct xfer_early));
	}
	/* the probes are answered when the pass finishes the timelines, next */
	return CT_ANALYSIS_OK;
}

/* ------------------------------------------------------------ result */

static double best_of(const struct transfers *t, const struct xfer_key *key)
{
	return t->best[key->device][key->direction];
}

/* The device's memory bandwidth, for copies that stay on the device; 0 if unknown. */
static uint64_t device_peak(const struct xfer_group *g)
{
	const struct ct_device *device =
	    g->key.device != CT_DEVICE_NONE ? g->process->devices[g->key.device] : NULL;

	if (!device || g->key.direction != CT_DIR_DTOD)
		return 0;
	return device->memory_bandwidth;
}

static double bandwidth_of(const struct xfer_group *g)
{
	return g->gpu_ns > 0 ? (double)g->gpu_bytes * 1e9 / (double)g->gpu_ns : 0;
}

/* PART / WHOLE, NAN (null in the report) unless both are positive. */
static double ratio(double part, double whole)
{
	return part > 0 && whole > 0 ? part / whole : NAN;
}

/* A bandwidth, NAN (null in the report) unless it is positive. */
static double known_bandwidth(double bandwidth)
{
	return bandwidth > 0 ? bandwidth : NAN;
}

static const char *intern(struct transfers *t, const char *text)
{
	return text ? g_string_chunk_insert_const(t->result.strings, text) : NULL;
}

static struct ct_transfers_site site_of(struct transfers *t, const struct xfer_group *g)
{
	struct ct_api_ref api = { g->key.api_domain, g->key.api_cbid, 0, 0 };
	char site[512];
	char path[512];

	return (struct ct_transfers_site){
		.pid = g->process->pid,
		.process = intern(t, g->process->procname),
		.tid = g->key.tid,
		.site = intern(t, ct_call_site_format(t->ctx, g->process, g->key.path, &api,
		                                      g->key.stack_id, site, sizeof(site))),
		.nvtx_path = intern(t, ct_path_format(t->ctx, g->key.path, path, sizeof(path))),
		.api =
		    intern(t, ct_context_api_name(g->process, g->key.api_domain, g->key.api_cbid)),
	};
}

static void add_hotspot(struct transfers *t, const struct xfer_group *g, int64_t total_cost)
{
	double bandwidth = bandwidth_of(g);
	uint64_t peak = device_peak(g);
	struct ct_transfers_hotspot h = {
		.where = site_of(t, g),
		.has_device = g->key.device != CT_DEVICE_NONE,
		.device = g->key.device,
		.direction = g->key.direction,
		.host = g->key.host,
		.sync = g->key.sync,
		/* pageable "async" copies block the host too */
		.blocking = blocking_copy(g->key.direction, g->key.host, g->key.sync),
		.size_class = size_class_names[g->key.size_class],
		.count = g->count,
		.bytes = g->bytes,
		.mean_bytes = g->count ? g->bytes / g->count : 0,
		.gpu_records = g->gpu_count,
		.gpu_time_ns = g->gpu_ns,
		.host_time_ns = g->host_ns,
		.cost_ns = g->cost_ns,
		.cost_share = ratio((double)g->cost_ns, (double)total_cost),
		.bandwidth_bytes_per_s = known_bandwidth(bandwidth),
		.best_bandwidth_bytes_per_s = known_bandwidth(best_of(t, &g->key)),
		.of_best = ratio(bandwidth, best_of(t, &g->key)),
		.device_peak_bytes_per_s = known_bandwidth((double)peak),
		.of_device_peak = ratio(bandwidth, (double)peak),
		.blocked_probed_ns = g->blocked_ns,
		.gpu_idle_while_blocked_ns = g->gpu_idle_ns,
		.first_ns = g->first_ns,
		.last_ns = g->last_ns,
	};

	g_array_append_val(t->result.hotspots, h);
}

static int by_cost(const void *pa, const void *pb, void *data)
{
	const struct transfers *t = data;
	const struct xfer_group *a = group_at(t, *(const uint32_t *)pa);
	const struct xfer_group *b = group_at(t, *(const uint32_t *)pb);

	if (a->cost_ns != b->cost_ns)
		return a->cost_ns < b->cost_ns ? 1 : -1;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return a->first_ns < b->first_ns ? -1 : a->first_ns > b->first_ns;
}

/* Totals by direction, host memory and sync: a few rows at most. */
struct direction_row {
	uint8_t direction, host, sync;
	uint64_t count, bytes, gpu_bytes;
	int64_t gpu_ns, host_ns, cost_ns;
	double best;
};

static void add_by_direction(struct transfers *t)
{
	struct direction_row rows[CT_ENUM_COUNT(direction) * CT_ENUM_COUNT(host_mem) * 2];
	size_t count = 0;

	for (uint32_t i = 0; i < t->groups->len; i++) {
		const struct xfer_group *g = group_at(t, i);
		size_t r;

		for (r = 0; r < count; r++)
			if (rows[r].direction == g->key.direction && rows[r].host == g->key.host &&
			    rows[r].sync == g->key.sync)
				break;
		if (r == count)
			rows[count++] = (struct direction_row){ .direction = g->key.direction,
				                                .host = g->key.host,
				                                .sync = g->key.sync };
		rows[r].count += g->count;
		rows[r].bytes = ct_sat_add_u64(rows[r].bytes, g->bytes);
		rows[r].gpu_bytes = ct_sat_add_u64(rows[r].gpu_bytes, g->gpu_bytes);
		rows[r].gpu_ns = ct_sat_add(rows[r].gpu_ns, g->gpu_ns);
		rows[r].host_ns = ct_sat_add(rows[r].host_ns, g->host_ns);
		rows[r].cost_ns = ct_sat_add(rows[r].cost_ns, g->cost_ns);
		if (best_of(t, &g->key) > rows[r].best)
			rows[r].best = best_of(t, &g->key);
	}
	for (size_t r = 0; r < count; r++) {
		double bandwidth = rows[r].gpu_ns > 0
		                       ? (double)rows[r].gpu_bytes * 1e9 / (double)rows[r].gpu_ns
		                       : 0;
		struct ct_transfers_direction d = {
			.direction = rows[r].direction,
			.host = rows[r].host,
			.sync = rows[r].sync,
			.count = rows[r].count,
			.bytes = rows[r].bytes,
			.gpu_time_ns = rows[r].gpu_ns,
			.host_time_ns = rows[r].host_ns,
			.cost_ns = rows[r].cost_ns,
			.bandwidth_bytes_per_s = known_bandwidth(bandwidth),
			.best_bandwidth_bytes_per_s = known_bandwidth(rows[r].best),
			.of_best = ratio(bandwidth, rows[r].best),
		};

		g_array_append_val(t->result.by_direction, d);
	}
}

/* ---------------------------------------------------------- findings */

/* "1.50 ms", "230 us" ... for the messages people read. */
static const char *human_ns(int64_t ns, char *buf, size_t len)
{
	if (ns >= 1000000000)
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else
		snprintf(buf, len, "%" PRId64 " ns", ns);
	return buf;
}

static const char *human_bytes(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= (UINT64_C(1) << 30))
		snprintf(buf, len, "%.2f GiB", (double)bytes / (double)(UINT64_C(1) << 30));
	else if (bytes >= (UINT64_C(1) << 20))
		snprintf(buf, len, "%.2f MiB", (double)bytes / (double)(UINT64_C(1) << 20));
	else if (bytes >= 1024)
		snprintf(buf, len, "%.1f KiB", (double)bytes / 1024.0);
	else
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	return buf;
}

/* What each finding tells to do (the end of its message, and its advice). */
#define ADVICE_PIN    "pin the buffer (cudaHostAlloc, cudaHostRegister) to make them asynchronous"
#define ADVICE_GATHER "gather the data into fewer, larger copies"
#define ADVICE_UPLOAD_ONCE \
	"if its contents do not change in between, upload it once and keep it on the device"
#define ADVICE_UPLOAD_ONCE_EACH                                                              \
	"if their contents do not change in between, upload each once and keep them on the " \
	"device"
#define ADVICE_KEEP_ON_DEVICE "unless the host changes the data in between, keep it on the device"
#define ADVICE_ASYNC_PINNED                                                                   \
	"copy asynchronously from pinned memory on a stream of its own and keep work queued " \
	"behind it"
#define ADVICE_ASYNC "copy asynchronously on a stream of its own and keep work queued behind it"
#define ADVICE_PIN_AND_QUEUE                                                             \
	"pin the host buffer (cudaHostAlloc, cudaHostRegister) so that the copies stop " \
	"blocking the host, and keep work queued behind them"

/* "copy" or "copies", "upload" or "uploads": NOUN for COUNT of them (NOUN_ONE when 1). */
static const char *plural(uint64_t count, const char *noun_one, const char *noun)
{
	return count == 1 ? noun_one : noun;
}

/* A finding before it is written: findings are ranked by the time they cost. */
struct finding {
	const char *kind;
	uint32_t group; /* where it happens */
	uint64_t count;
	uint64_t bytes;
	int64_t time_ns;
	uint64_t address; /* host buffer, 0 if none (or several) */
	uint64_t buffers; /* host buffers (repeated_upload) */
	bool every_small; /* of the site's small copies of every size class (a storm) */
	bool at_least;    /* count, bytes and time are the least they were (a table forgot some) */
	bool same_bytes;  /* uploads sampled, sending the same bytes in a row (repeated_upload) */
	const char *advice; /* what to do, static; also the end of the message */
	char message[768];
};

/* A new finding at the end of LIST (a GArray of struct finding). */
static struct finding *finding_add(GArray *list)
{
	g_array_set_size(list, list->len + 1);
	return &g_array_index(list, struct finding, list->len - 1);
}

static int64_t mean_cost(const struct xfer_group *g)
{
	return g->count ? g->cost_ns / (int64_t)g->count : 0;
}

static void find_pageable_async(struct transfers *t, GArray *list)
{
	for (uint32_t i = 0; i < t->groups->len; i++) {
		const struct xfer_group *g = group_at(t, i);
		char bytes[32];
		struct finding *f;

		if (g->key.sync || g->key.host != CT_HOST_PAGEABLE)
			continue;
		f = finding_add(list);
		*f = (struct finding){ .kind = "pageable_async",
			               .group = i,
			               .count = g->count,
			               .bytes = g->bytes,
			               .time_ns = g->cost_ns,
			               .advice = ADVICE_PIN };
		snprintf(f->message, sizeof(f->message),
		         "%" PRIu64 " asynchronous %s %s (%s) %s pageable host memory: the "
		         "driver stages them through a pinned buffer and the host waits, so they "
		         "overlap nothing; %s",
		         g->count, ct_direction_label(g->key.direction),
		         plural(g->count, "copy", "copies"),
		         human_bytes(g->bytes, bytes, sizeof(bytes)),
		         g->key.direction == CT_DIR_DTOH ? "to" : "from", f->advice);
	}
}

/* The sites of small copies, merged across size classes, host memory and sync. */
static bool same_site(const struct xfer_key *a, const struct xfer_key *b)
{
	return a->process == b->process && a->path == b->path && a->tid == b->tid &&
	       a->stack_id == b->stack_id && a->api_domain == b->api_domain &&
	       a->api_cbid == b->api_cbid && a->direction == b->direction && a->device == b->device;
}

static void find_storms(struct transfers *t, GArray *list)
{
	for (uint32_t i = 0; i < t->groups->len; i++) {
		const struct xfer_group *g = group_at(t, i);
		uint64_t count = 0, bytes = 0;
		int64_t cost = 0, first = INT64_MAX, last = INT64_MIN;
		char mean[32], every[32], total[32];
		bool seen_before = false;
		struct finding *f;

		if (!is_small_class(g->key.size_class))
			continue;
		/* the first small group of a site speaks for the site */
		for (uint32_t j = 0; j < i && !seen_before; j++)
			seen_before = is_small_class(group_at(t, j)->key.size_class) &&
			              same_site(&group_at(t, j)->key, &g->key);
		if (seen_before)
			continue;
		for (uint32_t j = i; j < t->groups->len; j++) {
			const struct xfer_group *h = group_at(t, j);

			if (!is_small_class(h->key.size_class) || !same_site(&h->key, &g->key))
				continue;
			count += h->count;
			bytes = ct_sat_add_u64(bytes, h->bytes);
			cost = ct_sat_add(cost, h->cost_ns);
			first = h->first_ns < first ? h->first_ns : first;
			last = h->last_ns > last ? h->last_ns : last;
		}
		if (count < STORM_MIN_COPIES ||
		    (last - first) / (int64_t)(count - 1) > STORM_MAX_INTERVAL_NS)
			continue;
		f = finding_add(list);
		*f = (struct finding){ .kind = "small_copy_storm",
			               .group = i,
			               .count = count,
			               .bytes = bytes,
			               .time_ns = cost,
			               .every_small = true,
			               .advice = ADVICE_GATHER };
		snprintf(f->message, sizeof(f->message),
		         "%" PRIu64 " %s copies of %s on average, one every %s, cost %s: each "
		         "pays the fixed cost of a copy; %s",
		         count, ct_direction_label(g->key.direction),
		         human_bytes(bytes / count, mean, sizeof(mean)),
		         human_ns((last - first) / (int64_t)(count - 1), every, sizeof(every)),
		         human_ns(cost, total, sizeof(total)), f->advice);
	}
}

/* The buffers of one hotspot uploaded again and again, for one finding. */
struct repeated_site {
	uint64_t buffers;
	uint64_t uploads; /* their runs' uploads */
	uint64_t bytes;
	uint64_t smallest, largest;
	uint64_t fewest, most; /* uploads of a buffer's run */
	uint64_t address;      /* the one buffer's, when there is one */
	bool at_least;
	bool sampled; /* every run was sampled throughout */
};

static void add_repeated(struct repeated_site *r, const struct upload *u)
{
	uint64_t bytes = u->bytes > UINT64_MAX / u->best ? UINT64_MAX : u->bytes * u->best;

	if (!r->buffers) {
		r->smallest = r->largest = u->bytes;
		r->fewest = r->most = u->best;
		r->sampled = true;
	}
	r->buffers++;
	r->uploads = ct_sat_add_u64(r->uploads, u->best);
	r->bytes = ct_sat_add_u64(r->bytes, bytes);
	r->smallest = u->bytes < r->smallest ? u->bytes : r->smallest;
	r->largest = u->bytes > r->largest ? u->bytes : r->largest;
	r->fewest = u->best < r->fewest ? u->best : r->fewest;
	r->most = u->best > r->most ? u->best : r->most;
	r->address = u->address;
	r->at_least = r->at_least || u->at_least;
	r->sampled = r->sampled && u->best_sampled;
}

/* The finding of the buffers R of hotspot GROUP. */
static void repeated_finding(struct transfers *t, GArray *list, uint32_t group,
                             const struct repeated_site *r)
{
	struct finding *f = finding_add(list);
	const char *sampled = r->sampled ? " in a row with the same sampled bytes" : "";
	char small[32], large[32], times[64];

	*f = (struct finding){ .kind = "repeated_upload",
		               .group = group,
		               .count = r->uploads,
		               .bytes = r->bytes,
		               .time_ns = ct_sat_mul(mean_cost(group_at(t, group)),
		                                     (int64_t)(r->uploads - r->buffers)),
		               .address = r->buffers == 1 ? r->address : 0,
		               .buffers = r->buffers,
		               .at_least = r->at_least,
		               .same_bytes = r->sampled,
		               .advice =
		                   r->buffers == 1 ? ADVICE_UPLOAD_ONCE : ADVICE_UPLOAD_ONCE_EACH };
	human_bytes(r->smallest, small, sizeof(small));
	human_bytes(r->largest, large, sizeof(large));
	if (r->buffers == 1)
		snprintf(f->message, sizeof(f->message),
		         "the host buffer at 0x%" PRIx64 " (%s) was uploaded %s%" PRIu64
		         " times%s: %s",
		         r->address, small, r->at_least ? "at least " : "", r->uploads, sampled,
		         f->advice);
	else {
		if (r->fewest == r->most)
			snprintf(times, sizeof(times), "%" PRIu64, r->most);
		else
			snprintf(times, sizeof(times), "%" PRIu64 " to %" PRIu64, r->fewest,
			         r->most);
		snprintf(f->message, sizeof(f->message),
		         "%" PRIu64 " host buffers (%s%s%s each) were each uploaded %s times%s, "
		         "%s%" PRIu64 " times in all: %s",
		         r->buffers, small, r->smallest == r->largest ? "" : " to ",
		         r->smallest == r->largest ? "" : large, times, sampled,
		         r->at_least ? "at least " : "", r->uploads, f->advice);
	}
}

/*
 * One finding a hotspot (its site, direction, host memory, size class):
 * a loop over a dataset's slices or a model's tensors uploads many
 * buffers from one line, each again and again, and that is one fix.
 */
static void find_repeated_uploads(struct transfers *t, GArray *list)
{
	struct repeated_site *sites = g_new0(struct repeated_site, t->groups->len);

	for (size_t p = 0; p < ct_context_process_count(t->ctx); p++) {
		struct xfer_process *xp = ct_context_process_at(t->ctx, p)->slot[t->slot];

		for (size_t i = 0; xp && xp->uploads && i < UPLOAD_SETS * UPLOAD_WAYS; i++) {
			const struct upload *u = &xp->uploads[i];

			if (u->count && u->best >= REPEAT_MIN_UPLOADS)
				add_repeated(&sites[u->group], u);
		}
	}
	for (uint32_t g = 0; g < t->groups->len; g++)
		if (sites[g].buffers)
			repeated_finding(t, list, g, &sites[g]);
	g_free(sites);
}

static void find_round_trips(struct transfers *t, GArray *list)
{
	for (uint32_t i = 0; i < t->groups->len; i++) {
		const struct xfer_group *g = group_at(t, i);
		const struct xfer_group *from;
		const struct xfer_process *xp;
		struct ct_api_ref api;
		char site[512], size[32];
		struct finding *f;

		if (!g->round_trips)
			continue;
		from = group_at(t, g->round_trip_from);
		xp = g->process->slot[t->slot];
		f = finding_add(list);
		*f = (struct finding){ .kind = "round_trip",
			               .group = i,
			               .count = g->round_trips,
			               .bytes = g->round_trip_bytes,
			               .time_ns = (mean_cost(g) + mean_cost(from)) *
			                          (int64_t)g->round_trips,
			               .at_least = xp->downloads_forgotten,
			               .advice = ADVICE_KEEP_ON_DEVICE };
		api = (struct ct_api_ref){ from->key.api_domain, from->key.api_cbid, 0, 0 };
		ct_call_site_format(t->ctx, from->process, from->key.path, &api, from->key.stack_id,
		                    site, sizeof(site));
		snprintf(f->message, sizeof(f->message),
		         "%s%" PRIu64 " %s (%s) sent back to the device the host buffer a "
		         "download at %.300s had filled, same address and size: %s",
		         f->at_least ? "at least " : "", g->round_trips,
		         plural(g->round_trips, "upload", "uploads"),
		         human_bytes(g->round_trip_bytes, size, sizeof(size)), site, f->advice);
	}
}

/*
 * What to do about blocking copies during which the GPU sat idle. An
 * asynchronous copy is blocking only because its host memory is pageable
 * (pageable_async says the same for it): pinning is the whole fix, and
 * "copy asynchronously" would tell it to do what it already does.
 */
static const char *idle_advice(const struct xfer_key *key)
{
	if (!key->sync)
		return ADVICE_PIN_AND_QUEUE;
	if (key->host == CT_HOST_PAGEABLE)
		return ADVICE_ASYNC_PINNED;
	return ADVICE_ASYNC;
}

static void find_idle_syncs(struct transfers *t, GArray *list)
{
	for (uint32_t i = 0; i < t->groups->len; i++) {
		const struct xfer_group *g = group_at(t, i);
		char blocked[32], idle[32];
		struct finding *f;

		if (g->gpu_idle_ns < IDLE_MIN_NS ||
		    (double)g->gpu_idle_ns < IDLE_MIN_SHARE * (double)g->blocked_ns)
			continue;
		f = finding_add(list);
		*f = (struct finding){ .kind = "sync_copy_gpu_idle",
			               .group = i,
			               .count = g->probed,
			               .bytes = g->bytes,
			               .time_ns = g->gpu_idle_ns,
			               .advice = idle_advice(&g->key) };
		snprintf(f->message, sizeof(f->message),
		         "the host waited %s in %" PRIu64 " %s %s %s %s %s memory, and the "
		         "GPU sat idle for %s of it: nothing else was queued; %s",
		         human_ns(g->blocked_ns, blocked, sizeof(blocked)), g->probed,
		         g->key.sync ? "synchronous" : "asynchronous",
		         ct_direction_label(g->key.direction), plural(g->probed, "copy", "copies"),
		         g->key.direction == CT_DIR_DTOH ? "to" : "from",
		         ct_host_mem_label(g->key.host),
		         human_ns(g->gpu_idle_ns, idle, sizeof(idle)), f->advice);
	}
}

static int by_time(const void *pa, const void *pb)
{
	const struct finding *a = pa, *b = pb;

	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? 1 : -1;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return strcmp(a->kind, b->kind);
}

static void add_findings(struct transfers *t)
{
	GArray *list = g_array_new(FALSE, TRUE, sizeof(struct finding));
	guint shown;

	find_pageable_async(t, list);
	find_storms(t, list);
	find_repeated_uploads(t, list);
	find_round_trips(t, list);
	find_idle_syncs(t, list);
	if (list->len)
		qsort(list->data, list->len, sizeof(struct finding), by_time);
	shown = list->len < t->opts->max_rows ? list->len : (guint)t->opts->max_rows;
	t->result.finding_count = list->len;
	for (guint i = 0; i < shown; i++) {
		const struct finding *f = &g_array_index(list, struct finding, i);
		const struct xfer_group *g = group_at(t, f->group);
		struct ct_transfers_finding out = {
			.kind = f->kind,
			.where = site_of(t, g),
			.direction = g->key.direction,
			.host = g->key.host,
			.sync = g->key.sync,
			.size_class = f->every_small ? NULL : size_class_names[g->key.size_class],
			.count = f->count,
			.bytes = f->bytes,
			.time_ns = f->time_ns,
			.host_address = f->address,
			.buffers = f->buffers,
			.at_least = f->at_least,
			.same_bytes = f->same_bytes,
			.message = intern(t, f->message),
			.advice = f->advice,
		};

		g_array_append_val(t->result.findings, out);
	}
	g_array_unref(list);
}

static void add_totals(struct transfers *t, int64_t total_cost)
{
	struct ct_transfers_result *r = &t->result;

	for (uint32_t i = 0; i < t->groups->len; i++) {
		r->bytes = ct_sat_add_u64(r->bytes, group_at(t, i)->bytes);
		r->gpu_time_ns = ct_sat_add(r->gpu_time_ns, group_at(t, i)->gpu_ns);
		r->host_time_ns = ct_sat_add(r->host_time_ns, group_at(t, i)->host_ns);
	}
	r->copies = t->copies;
	r->cost_ns = total_cost;
	r->gpu_records = t->gpu_records;
	r->gpu_records_unmatched = t->unmatched_gpu;
	r->gpu_records_end_unknown = t->end_unknown;
	/* a memcpy is joined to one record at most */
	r->copies_without_gpu_record = t->memcpys > t->joined ? t->memcpys - t->joined : 0;
	r->sites = t->groups->len;
}

static enum ct_analysis_status transfers_result(void *state, const void **result)
{
	struct transfers *t = state;
	int64_t total_cost = 0;
	uint32_t *order;
	size_t shown;

	t->result.by_direction = g_array_new(FALSE, FALSE, sizeof(struct ct_transfers_direction));
	t->result.hotspots = g_array_new(FALSE, FALSE, sizeof(struct ct_transfers_hotspot));
	t->result.findings = g_array_new(FALSE, FALSE, sizeof(struct ct_transfers_finding));
	t->result.strings = g_string_chunk_new(4096);
	for (uint32_t i = 0; i < t->groups->len; i++)
		total_cost = ct_sat_add(total_cost, group_at(t, i)->cost_ns);
	add_totals(t, total_cost);
	add_by_direction(t);
	/* group indices, by what they cost, then bytes */
	order = ct_analysis_rank(t->groups->len, by_cost, t);
	shown = t->groups->len < t->opts->max_rows ? t->groups->len : t->opts->max_rows;
	for (size_t i = 0; i < shown; i++)
		add_hotspot(t, group_at(t, order[i]), total_cost);
	g_free(order);
	add_findings(t);
	*result = &t->result;
	return CT_ANALYSIS_OK;
}

static void result_release(struct ct_transfers_result *r)
{
	if (r->by_direction)
		g_array_unref(r->by_direction);
	if (r->hotspots)
		g_array_unref(r->hotspots);
	if (r->findings)
		g_array_unref(r->findings);
	if (r->strings)
		g_string_chunk_free(r->strings);
}

/* --------------------------------------------------------- lifecycle */

static enum ct_analysis_status transfers_create(struct ct_context *ctx,
                                                const struct ct_options *opts, void **state)
{
	struct transfers *t = g_new0(struct transfers, 1);

	*state = t;
	t->groups = g_ptr_array_new_with_free_func(g_free);
	t->by_key = g_hash_table_new(key_hash, key_equal);
	t->ctx = ctx;
	t->opts = opts;
	t->slot = ct_analysis_slot(ctx);
	return t->slot < 0 ? CT_ANALYSIS_NO_SLOT : CT_ANALYSIS_OK;
}

static void free_process_slot(struct transfers *t, struct ct_process *process)
{
	struct xfer_process *xp = process->slot[t->slot];

	if (!xp)
		return;
	ct_corr_map_release(&xp->graphs);
	ct_corr_map_release(&xp->early);
	g_free(xp->uploads);
	g_free(xp->downloads);
	g_free(xp);
	process->slot[t->slot] = NULL;
}

static void transfers_destroy(void *state)
{
	struct transfers *t = state;

	if (!t)
		return;
	if (t->slot >= 0) {
		for (size_t p = 0; p < ct_context_process_count(t->ctx); p++)
			free_process_slot(t, ct_context_process_at(t->ctx, p));
		ct_context_free_thread_slots(t->ctx, t->slot);
	}
	result_release(&t->result);
	g_hash_table_destroy(t->by_key);
	g_ptr_array_free(t->groups, TRUE);
	g_free(t);
}

const struct ct_analysis_class ct_transfers_analysis = {
	.name = "transfers",
	.id = CT_ANALYSIS_TRANSFERS,
	.section = &ct_transfers_section,
	.wants =
	    CT_EV_BIT(CT_EV_MEMCPY) | CT_EV_BIT(CT_EV_GPU_MEMCPY) | CT_EV_BIT(CT_EV_GRAPH_LAUNCH),
	.uses = CT_SHARED_API_CALLS | CT_SHARED_GPU_ACTIVITY | CT_SHARED_GPU_JOINS,
	.create = transfers_create,
	.event = transfers_event,
	.finish = transfers_finish,
	.result = transfers_result,
	.destroy = transfers_destroy,
};
