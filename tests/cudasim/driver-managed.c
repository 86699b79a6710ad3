/* SPDX-License-Identifier: MIT */
/*
 * driver-managed.c - managed memory advice, prefetch and range attributes:
 * cuMemAdvise, cuMemPrefetchAsync (CUDA 13's CUmemLocation forms and the
 * CUdevice ones they replaced) and cuMemRangeGetAttribute(s) (cuda.h,
 * "Unified Addressing").
 *
 * Managed memory is host memory here (README.md, "Memory model"), so
 * nothing has to move; what the driver would do is kept per page of each
 * managed allocation, as cuda.h describes it:
 *  - where its copies are: the host, or devices. Pages start on the host:
 *    the simulator cannot see the host touch them, and a program fills its
 *    managed memory on the host before it prefetches it, as a rule;
 *  - the advice: read-mostly, the preferred location, the processors it is
 *    accessed by;
 *  - the last location it was prefetched to.
 * The range an advice or prefetch applies to is rounded out to whole host
 * pages ("rounded down and rounded up respectively to be aligned to CPU
 * page size"), within the allocation.
 *
 * A prefetch is stream work: it takes CUDASIM_COPY_LATENCY_NS plus the
 * bytes of the pages it migrates over the pinned host-to-device,
 * device-to-host or peer bandwidth (a page already at the destination
 * moves nothing), and has an "op=prefetch" ledger line. Pages move (their
 * copies elsewhere are dropped), except read-mostly ones, which gain a
 * read-only copy at the destination ("it will create a read-only copy of
 * the data on the destination processor", cuMemAdvise). With
 * CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER enabled and the counter kind
 * configured (cuptiActivityConfigureUnifiedMemoryCounter), each migration
 * is a CUpti_ActivityUnifiedMemoryCounter3 record of kind
 * BYTES_TRANSFER_HTOD, _DTOH or _DTOD with the cause
 * CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER, which
 * cupti_activity.h documents as "migrated due to an explicit call from the
 * user e.g. cudaMemPrefetchAsync". The host's id in srcId/dstId is 0.
 *
 * The device has no pageable memory access (CU_DEVICE_ATTRIBUTE_PAGEABLE_
 * MEMORY_ACCESS is 0): advice on memory that is not managed is invalid.
 * CUDA graphs have no node for a prefetch (cuda.h, CUgraphNodeType): one
 * on a capturing stream fails and invalidates the capture.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver-memory.h"

/* A set of processors: the host and devices 0 .. 63. */
struct um_where {
	bool host;
	uint64_t devices;
};

/* Pages [first, end) of an allocation whose state is the same. */
struct um_segment {
	uintptr_t first, end; /* page numbers: address / page size */
	struct um_where copies;
	bool read_mostly;
	CUmemLocation preferred;     /* type NONE: no preference */
	struct um_where accessed_by; /* CU_MEM_ADVISE_SET_ACCESSED_BY */
	CUmemLocation prefetched;    /* type INVALID: never prefetched */
};

struct sim_um {
	size_t count, capacity;
	struct um_segment segments[];
};

/* ------------------------------------------------------------ locations */

static bool where_has(const struct um_where *w, const CUmemLocation *loc)
{
	if (loc->type == CU_MEM_LOCATION_TYPE_DEVICE)
		return (w->devices >> loc->id) & 1;
	return w->host;
}

static void where_add(struct um_where *w, const CUmemLocation *loc)
{
	if (loc->type == CU_MEM_LOCATION_TYPE_DEVICE)
		w->devices |= (uint64_t)1 << loc->id;
	else
		w->host = true;
}

static bool host_numa_valid(int id)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", id);
	return id >= 0 && (id == 0 || access(path, F_OK) == 0);
}

/* The host NUMA node of the calling thread's CPU (0 if unknown). */
static int current_numa_node(void)
{
	unsigned int cpu = 0, node = 0;

	if (getcpu(&cpu, &node) != 0)
		return 0;
	return (int)node;
}

/*
 * A location a prefetch or a preferred-location advice may name (cuda.h,
 * cuMemPrefetchAsync): a device with concurrent managed access, the host,
 * a host NUMA node, or the current thread's. HOST_NUMA_CURRENT becomes the
 * node it stands for, HOST's id is ignored (0).
 */
static CUresult location_check(CUmemLocation *loc, bool numa_ok)
{
	switch (loc->type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		if (!sim_device_valid(loc->id))
			return CUDA_ERROR_INVALID_DEVICE;
		if (!sim_device_attribute(loc->id, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS))
			return CUDA_ERROR_INVALID_DEVICE;
		return CUDA_SUCCESS;
	case CU_MEM_LOCATION_TYPE_HOST:
		loc->id = 0;
		return CUDA_SUCCESS;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
		return numa_ok && host_numa_valid(loc->id) ? CUDA_SUCCESS
		                                           : CUDA_ERROR_INVALID_VALUE;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
		if (!numa_ok)
			return CUDA_ERROR_INVALID_VALUE;
		loc->type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
		loc->id = current_numa_node();
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/* The legacy CUdevice form of a location: CU_DEVICE_CPU is the host. */
static CUmemLocation location_of_device(CUdevice device)
{
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, device };

	if (device == CU_DEVICE_CPU) {
		loc.type = CU_MEM_LOCATION_TYPE_HOST;
		loc.id = 0;
	}
	return loc;
}

static bool location_same(const CUmemLocation *a, const CUmemLocation *b)
{
	return a->type == b->type && (a->type == CU_MEM_LOCATION_TYPE_HOST || a->id == b->id);
}

/* ------------------------------------------------------------ segments */

/* The state of a managed allocation, made on first use: one segment, all
 * on the host, no advice. Memory lock held. */
static struct sim_um *um_of(struct sim_mem_record *rec)
{
	size_t page = sim_page_size();
	struct sim_um *um = rec->um;

	if (um)
		return um;
	um = calloc(1, sizeof(*um) + 8 * sizeof(um->segments[0]));
	if (!um)
		return NULL;
	um->capacity = 8;
	um->count = 1;
	um->segments[0].first = rec->range.base / page;
	um->segments[0].end = (rec->range.base + rec->range.size + page - 1) / page;
	um->segments[0].copies.host = true;
	um->segments[0].preferred.type = CU_MEM_LOCATION_TYPE_NONE;
	um->segments[0].prefetched.type = CU_MEM_LOCATION_TYPE_INVALID;
	rec->um = um;
	return um;
}

/* A segment boundary at page p (inside the allocation). */
static bool um_split(struct sim_mem_record *rec, uintptr_t p)
{
	struct sim_um *um = rec->um;

	for (size_t i = 0; i < um->count; i++) {
		struct um_segment *s = &um->segments[i];

		if (p <= s->first || p >= s->end)
			continue;
		if (um->count == um->capacity) {
			size_t capacity = um->capacity * 2;
			struct sim_um *grown =
			    realloc(um, sizeof(*um) + capacity * sizeof(um->segments[0]));

			if (!grown)
				return false;
			um = rec->um = grown;
			um->capacity = capacity;
			s = &um->segments[i];
		}
		memmove(s + 1, s, (um->count - i) * sizeof(*s));
		um->count++;
		s->end = p;
		s[1].first = p;
		return true;
	}
	return true;
}

/*
 * The managed allocation holding [ptr, ptr + count), its state split so
 * that the pages of the range are whole segments [*first, *end). Memory
 * lock held; CUDA_ERROR_INVALID_VALUE for memory that is not managed.
 */
static CUresult um_range(uintptr_t ptr, size_t count, struct sim_mem_record **out, uintptr_t *first,
                         uintptr_t *end)
{
	struct sim_mem_record *rec = sim_mem_table_find(ptr);
	size_t page = sim_page_size();
	struct sim_um *um;

	if (!rec || rec->kind != SIM_MEM_MANAGED || count == 0 ||
	    count > rec->range.size - (ptr - rec->range.base))
		return CUDA_ERROR_INVALID_VALUE;
	um = um_of(rec);
	if (!um)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*first = ptr / page;
	*end = (ptr + count + page - 1) / page;
	if (*first < um->segments[0].first)
		*first = um->segments[0].first;
	if (*end > um->segments[um->count - 1].end)
		*end = um->segments[um->count - 1].end;
	if (!um_split(rec, *first) || !um_split(rec, *end))
		return CUDA_ERROR_OUT_OF_MEMORY;
	*out = rec;
	return CUDA_SUCCESS;
}

/* Whether a segment lies in pages [first, end) (um_range made the range
 * whole segments). */
static bool um_in(const struct um_segment *s, uintptr_t first, uintptr_t end)
{
	return s->first >= first && s->end <= end;
}

/* ------------------------------------------------------------ advice */

static CUresult advise(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                       CUmemLocation location)
{
	struct sim_mem_record *rec;
	uintptr_t first, end;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	switch (advice) {
	case CU_MEM_ADVISE_SET_PREFERRED_LOCATION:
		r = location_check(&location, true);
		break;
	case CU_MEM_ADVISE_SET_ACCESSED_BY:
	case CU_MEM_ADVISE_UNSET_ACCESSED_BY:
		/* "must be either CU_MEM_LOCATION_TYPE_DEVICE ... or
		 * CU_MEM_LOCATION_TYPE_HOST" */
		r = location_check(&location, false);
		break;
	case CU_MEM_ADVISE_SET_READ_MOSTLY:
	case CU_MEM_ADVISE_UNSET_READ_MOSTLY:
	case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
		break; /* the location is ignored */
	default:
		r = CUDA_ERROR_INVALID_VALUE;
	}
	if (r != CUDA_SUCCESS)
		return r;
	sim_mem_lock();
	r = um_range((uintptr_t)devPtr, count, &rec, &first, &end);
	for (size_t i = 0; r == CUDA_SUCCESS && i < rec->um->count; i++) {
		struct um_segment *s = &rec->um->segments[i];

		if (!um_in(s, first, end))
			continue;
		switch (advice) {
		case CU_MEM_ADVISE_SET_READ_MOSTLY:
			s->read_mostly = true;
			break;
		case CU_MEM_ADVISE_UNSET_READ_MOSTLY:
			/* Copies collapse into one: at the preferred
			 * location if one is there, else anywhere. */
			s->read_mostly = false;
			if (s->preferred.type != CU_MEM_LOCATION_TYPE_NONE &&
			    where_has(&s->copies, &s->preferred)) {
				memset(&s->copies, 0, sizeof(s->copies));
				where_add(&s->copies, &s->preferred);
			} else if (s->copies.host) {
				s->copies.devices = 0;
			} else {
				s->copies.devices &= -s->copies.devices;
			}
			break;
		case CU_MEM_ADVISE_SET_PREFERRED_LOCATION:
			s->preferred = location;
			break;
		case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
			s->preferred.type = CU_MEM_LOCATION_TYPE_NONE;
			s->preferred.id = 0;
			break;
		case CU_MEM_ADVISE_SET_ACCESSED_BY:
			where_add(&s->accessed_by, &location);
			break;
		default: /* CU_MEM_ADVISE_UNSET_ACCESSED_BY */
			if (location.type == CU_MEM_LOCATION_TYPE_DEVICE)
				s->accessed_by.devices &= ~((uint64_t)1 << location.id);
			else
				s->accessed_by.host = false;
			break;
		}
	}
	sim_mem_unlock();
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                                           CUmemLocation location)
{
	cuMemAdvise_v2_params p = { devPtr, count, advice, location };
	SIM_DRIVER_CALL(cuMemAdvise_v2, p, advise(devPtr, count, advice, location));
}

/* The CUDA 8 form, with a CUdevice (cuda.h names it cuMemAdvise_v2 for
 * CUDA 13 callers; cudaTypedefs.h: PFN_cuMemAdvise_v8000). */
#undef cuMemAdvise
SIM_EXPORT CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                                        CUdevice device);

SIM_EXPORT CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                                        CUdevice device)
{
	cuMemAdvise_params p = { devPtr, count, advice, device };
	SIM_DRIVER_CALL(cuMemAdvise, p, advise(devPtr, count, advice, location_of_device(device)));
}

/* ------------------------------------------------------------ prefetch */

/* One migration of a prefetch: bytes from a processor to another. */
struct migration {
	CUpti_ActivityUnifiedMemoryCounterKind kind;
	uintptr_t address;
	uint64_t bytes;
	uint32_t src, dst; /* device ordinal; the host is 0 */
};

struct prefetch {
	uint64_t htod, dtoh, dtod;
	struct migration *moves;
	size_t count, capacity;
};

static void prefetch_add(struct prefetch *p, const struct migration *m)
{
	if (m->kind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD)
		p->htod += m->bytes;
	else if (m->kind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH)
		p->dtoh += m->bytes;
	else
		p->dtod += m->bytes;
	if (p->count == p->capacity) {
		size_t capacity = p->capacity ? p->capacity * 2 : 8;
		struct migration *grown = realloc(p->moves, capacity * sizeof(*grown));

		if (!grown)
			return; /* the record is lost, not the bytes */
		p->moves = grown;
		p->capacity = capacity;
	}
	p->moves[p->count++] = *m;
}

/* The lowest device holding a copy. */
static int first_device(uint64_t devices)
{
	return __builtin_ctzll(devices);
}

/* What moving the segment's pages to dst takes, and its new state.
 * Memory lock held. */
static void prefetch_segment(struct um_segment *s, const CUmemLocation *dst, struct prefetch *p)
{
	size_t page = sim_page_size();
	struct migration m = { 0 };

	s->prefetched = *dst;
	if (!where_has(&s->copies, dst)) {
		bool to_device = dst->type == CU_MEM_LOCATION_TYPE_DEVICE;

		m.address = s->first * page;
		m.bytes = (uint64_t)(s->end - s->first) * page;
		m.dst = to_device ? (uint32_t)dst->id : 0;
		if (s->copies.host && to_device) {
			m.kind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD;
			m.src = 0;
		} else {
			m.kind =
			    to_device
			        ? CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD
			        : CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH;
			m.src = (uint32_t)first_device(s->copies.devices);
		}
		prefetch_add(p, &m);
	}
	if (!s->read_mostly)
		memset(&s->copies, 0, sizeof(s->copies));
	where_add(&s->copies, dst);
}

static double migration_bandwidth(const struct sim_config *config, const struct migration *m)
{
	switch (m->kind) {
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
		return config->bw_htod_pinned;
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
		return config->bw_dtoh_pinned;
	default:
		return config->bw_peer;
	}
}

static uint64_t transfer_ns(uint64_t bytes, double bandwidth)
{
	return bandwidth > 0 ? (uint64_t)((double)bytes * 1e9 / bandwidth) : 0;
}

/* The UNIFIED_MEMORY_COUNTER records of the migrations, one after the
 * other in [start + latency, end). */
static void prefetch_activity(const struct prefetch *p, uint64_t start, uint64_t end,
                              uint64_t stream_id)
{
	const struct sim_config *config = sim_config();
	uint64_t t = start + config->copy_latency_ns;

	if (!sim_activity_enabled(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER))
		return;
	for (size_t i = 0; i < p->count; i++) {
		const struct migration *m = &p->moves[i];
		CUpti_ActivityUnifiedMemoryCounter3 record;

		memset(&record, 0, sizeof(record));
		record.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;
		record.counterKind = m->kind;
		record.value = m->bytes;
		record.start = t;
		t += transfer_ns(m->bytes, migration_bandwidth(config, m));
		record.end = t < end ? t : end;
		record.address = m->address;
		record.srcId = m->src;
		record.dstId = m->dst;
		record.streamId = (uint32_t)stream_id;
		record.processId = (uint32_t)getpid();
		record.flags = CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER;
		sim_um_counter_activity((const CUpti_Activity *)&record, m->kind, record.end);
	}
}

static CUresult prefetch(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                         unsigned int flags, CUstream hStream)
{
	const struct sim_config *config = sim_config();
	struct prefetch p = { 0 };
	struct sim_mem_record *rec;
	struct sim_stream *stream;
	struct sim_context *ctx;
	uintptr_t first, end, base = 0;
	uint64_t start, gpu_end, duration, stream_id;
	char dst[16];
	CUresult r = sim_ctx_enter(&ctx);

	if (r != CUDA_SUCCESS)
		return r;
	/* "flags for future use, must be zero now" */
	if (flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	r = location_check(&location, true);
	if (r == CUDA_SUCCESS)
		r = sim_stream_resolve(ctx, hStream, &stream);
	if (r != CUDA_SUCCESS)
		return r;
	if (sim_stream_capture_graph(stream))
		return sim_stream_capture_violation(stream);
	sim_mem_lock();
	r = um_range((uintptr_t)devPtr, count, &rec, &first, &end);
	if (r == CUDA_SUCCESS)
		base = first * sim_page_size();
	for (size_t i = 0; r == CUDA_SUCCESS && i < rec->um->count; i++)
		if (um_in(&rec->um->segments[i], first, end))
			prefetch_segment(&rec->um->segments[i], &location, &p);
	sim_mem_unlock();
	if (r != CUDA_SUCCESS) {
		free(p.moves);
		return r;
	}
	duration = config->copy_latency_ns;
	for (size_t i = 0; i < p.count; i++)
		duration += transfer_ns(p.moves[i].bytes, migration_bandwidth(config, &p.moves[i]));
	sim_stream_submit(stream, duration, &start, &gpu_end);
	stream_id = sim_stream_get_id(stream);
	prefetch_activity(&p, start, gpu_end, stream_id);
	if (location.type == CU_MEM_LOCATION_TYPE_DEVICE)
		snprintf(dst, sizeof(dst), "%d", location.id);
	else
		snprintf(dst, sizeof(dst), "host");
	sim_ledger("op=prefetch dev=%d addr=0x%llx bytes=%llu dst=%s htod=%llu dtoh=%llu "
	           "dtod=%llu stream=%llu api=%s corr=%u gpu_start=%llu gpu_end=%llu",
	           sim_stream_device(stream), (unsigned long long)base,
	           (unsigned long long)((end - first) * sim_page_size()), dst,
	           (unsigned long long)p.htod, (unsigned long long)p.dtoh,
	           (unsigned long long)p.dtod, (unsigned long long)stream_id,
	           sim_current_api_name(), sim_current_correlation_id(), (unsigned long long)start,
	           (unsigned long long)gpu_end);
	free(p.moves);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count,
                                                  CUmemLocation location, unsigned int flags,
                                                  CUstream hStream)
{
	cuMemPrefetchAsync_v2_params p = { devPtr, count, location, flags, hStream };
	SIM_DRIVER_CALL(cuMemPrefetchAsync_v2, p,
	                prefetch(devPtr, count, location, flags, hStream));
}

/* The CUDA 8 forms, with a CUdevice (PFN_cuMemPrefetchAsync_v8000). */
#undef cuMemPrefetchAsync
SIM_EXPORT CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
                                               CUstream hStream);

SIM_EXPORT CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
                                               CUstream hStream)
{
	cuMemPrefetchAsync_params p = { devPtr, count, dstDevice, hStream };
	SIM_DRIVER_CALL(cuMemPrefetchAsync, p,
	                prefetch(devPtr, count, location_of_device(dstDevice), 0, hStream));
}

/* ------------------------------------------------------------ attributes */

/* The location every segment of the range shares (selected by which), or
 * type INVALID. */
static CUmemLocation range_location(struct sim_mem_record *rec, uintptr_t first, uintptr_t end,
                                    bool preferred)
{
	CUmemLocation common = { CU_MEM_LOCATION_TYPE_INVALID, 0 };
	bool seen = false;

	for (size_t i = 0; i < rec->um->count; i++) {
		const struct um_segment *s = &rec->um->segments[i];
		const CUmemLocation *loc = preferred ? &s->preferred : &s->prefetched;

		if (!um_in(s, first, end))
			continue;
		if (loc->type == CU_MEM_LOCATION_TYPE_NONE ||
		    (seen && !location_same(&common, loc))) {
			common.type = CU_MEM_LOCATION_TYPE_INVALID;
			return common;
		}
		common = *loc;
		seen = true;
	}
	return common;
}

/* The legacy form: a device, CU_DEVICE_CPU for the host (a NUMA node
 * included), CU_DEVICE_INVALID when the pages differ. */
static int location_as_device(const CUmemLocation *loc)
{
	switch (loc->type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		return loc->id;
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
		return CU_DEVICE_CPU;
	default:
		return CU_DEVICE_INVALID;
	}
}

static CUresult range_attribute(struct sim_mem_record *rec, uintptr_t first, uintptr_t end,
                                void *data, size_t size, CUmem_range_attribute attribute)
{
	struct um_where all = { true, ~(uint64_t)0 };
	CUmemLocation loc;
	int read_mostly = 1;

	if (!data)
		return CUDA_ERROR_INVALID_VALUE;
	switch (attribute) {
	case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
		if (size != 4)
			return CUDA_ERROR_INVALID_VALUE;
		for (size_t i = 0; i < rec->um->count; i++)
			if (um_in(&rec->um->segments[i], first, end))
				read_mostly &= rec->um->segments[i].read_mostly;
		*(int *)data = read_mostly;
		return CUDA_SUCCESS;
	case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY: {
		size_t n = 0;

		if (size == 0 || size % 4)
			return CUDA_ERROR_INVALID_VALUE;
		for (size_t i = 0; i < rec->um->count; i++) {
			const struct um_segment *s = &rec->um->segments[i];

			if (!um_in(s, first, end))
				continue;
			all.host &= s->accessed_by.host;
			all.devices &= s->accessed_by.devices;
		}
		if (all.host && n < size / 4)
			((int *)data)[n++] = CU_DEVICE_CPU;
		for (int d = 0; d < SIM_MAX_DEVICES && n < size / 4; d++)
			if ((all.devices >> d) & 1)
				((int *)data)[n++] = d;
		while (n < size / 4)
			((int *)data)[n++] = CU_DEVICE_INVALID;
		return CUDA_SUCCESS;
	}
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
		if (size != 4)
			return CUDA_ERROR_INVALID_VALUE;
		loc = range_location(rec, first, end,
		                     attribute == CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION);
		*(int *)data = location_as_device(&loc);
		return CUDA_SUCCESS;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
		if (size != sizeof(CUmemLocationType))
			return CUDA_ERROR_INVALID_VALUE;
		loc = range_location(rec, first, end,
		                     attribute == CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE);
		*(CUmemLocationType *)data = loc.type;
		return CUDA_SUCCESS;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID:
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID:
		if (size != 4)
			return CUDA_ERROR_INVALID_VALUE;
		loc = range_location(rec, first, end,
		                     attribute == CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID);
		*(int *)data = loc.id;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static CUresult range_attributes(void **data, size_t *sizes, CUmem_range_attribute *attributes,
                                 size_t n, CUdeviceptr devPtr, size_t count)
{
	struct sim_mem_record *rec;
	uintptr_t first, end;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (n == 0 || !data || !sizes || !attributes)
		return CUDA_ERROR_INVALID_VALUE;
	sim_mem_lock();
	r = um_range((uintptr_t)devPtr, count, &rec, &first, &end);
	for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++)
		r = range_attribute(rec, first, end, data[i], sizes[i], attributes[i]);
	sim_mem_unlock();
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuMemRangeGetAttribute(void *data, size_t dataSize,
                                                   CUmem_range_attribute attribute,
                                                   CUdeviceptr devPtr, size_t count)
{
	cuMemRangeGetAttribute_params p = { data, dataSize, attribute, devPtr, count };
	SIM_DRIVER_CALL(cuMemRangeGetAttribute, p,
	                range_attributes(&data, &dataSize, &attribute, 1, devPtr, count));
}

SIM_EXPORT CUresult CUDAAPI cuMemRangeGetAttributes(void **data, size_t *dataSizes,
                                                    CUmem_range_attribute *attributes,
                                                    size_t numAttributes, CUdeviceptr devPtr,
                                                    size_t count)
{
	cuMemRangeGetAttributes_params p = { data,          dataSizes, attributes,
		                             numAttributes, devPtr,    count };
	SIM_DRIVER_CALL(
	    cuMemRangeGetAttributes, p,
	    range_attributes(data, dataSizes, attributes, numAttributes, devPtr, count));
}
