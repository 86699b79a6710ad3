/* SPDX-License-Identifier: MIT */
/*
 * drv-managed.c - managed memory prefetch, advice and range attributes
 * through the driver API (cuda.h: cuMemPrefetchAsync, cuMemAdvise,
 * cuMemRangeGetAttribute), as an ordinary gcc program linked against the
 * toolkit's stub libcuda and libcupti. Needs two devices
 * (CUDASIM_DEVICES=2, sim/managed.sh).
 *
 * A managed allocation of 1 MiB starts on the host; prefetches move its
 * pages between the host and the devices, read-mostly pages keep their
 * copies, and the range attributes tell the advice and the last prefetch
 * location. With CUPTI's UNIFIED_MEMORY_COUNTER kind enabled and its byte
 * counters configured, each migration of a prefetch is a record of the
 * bytes moved, with the migration cause USER; none before that.
 *
 * Prints TAP, "# fact pid=N" and "# expect" lines for the ledger: the
 * allocations, every prefetch with the bytes it migrates in each
 * direction, and the failed calls.
 */
#include <cuda.h>
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "tap-cuda.h"

#define MANAGED_BYTES ((size_t)1 << 20) /* 2 MiB aligned: whole pages */
#define HALF          (MANAGED_BYTES / 2)

static CUmemLocation device_location(int id)
{
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, id };

	return loc;
}

static CUmemLocation host_location(void)
{
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_HOST, 0 };

	return loc;
}

/* A prefetch that succeeds, with the bytes it must migrate. */
static void prefetch_ok(CUdeviceptr p, size_t bytes, CUmemLocation loc, CUstream s, const char *dst,
                        size_t htod, size_t dtoh, size_t dtod, const char *what)
{
	if (cu_ok(cuMemPrefetchAsync(p, bytes, loc, 0, s), what))
		tap_expect("op=prefetch addr=0x%llx bytes=%zu dst=%s htod=%zu dtoh=%zu dtod=%zu "
		           "api=cuMemPrefetchAsync_v2",
		           (unsigned long long)p, bytes, dst, htod, dtoh, dtod);
}

static int range_int(CUdeviceptr p, size_t bytes, CUmem_range_attribute attribute)
{
	int value = -100;

	if (cuMemRangeGetAttribute(&value, sizeof(value), attribute, p, bytes) != CUDA_SUCCESS)
		return -100;
	return value;
}

static void check_prefetch(CUdeviceptr m, CUstream s)
{
	prefetch_ok(m, MANAGED_BYTES, device_location(0), s, "0", MANAGED_BYTES, 0, 0,
	            "prefetch the whole allocation from the host to device 0");
	tap_ok(range_int(m, MANAGED_BYTES, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION) == 0,
	       "the last prefetch location is device 0");
	tap_ok(range_int(m, MANAGED_BYTES, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE) ==
	               CU_MEM_LOCATION_TYPE_DEVICE &&
	           range_int(m, MANAGED_BYTES, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID) ==
	               0,
	       "... of type DEVICE, id 0");
	prefetch_ok(m, MANAGED_BYTES, device_location(0), s, "0", 0, 0, 0,
	            "prefetch it to device 0 again: nothing moves");
	prefetch_ok(m, HALF, host_location(), s, "host", 0, HALF, 0,
	            "prefetch the first half back to the host");
	tap_ok(range_int(m, HALF, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION) == CU_DEVICE_CPU,
	       "the first half was last prefetched to the CPU");
	tap_ok(range_int(m, MANAGED_BYTES, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION) ==
	           CU_DEVICE_INVALID,
	       "the halves differ: CU_DEVICE_INVALID for the whole");
	/* 100 bytes inside the second half: the page around them. */
	if (cu_ok(cuMemPrefetchAsync(m + HALF + 8, 100, device_location(0), 0, s),
	          "100 bytes already on device 0"))
		tap_expect("op=prefetch addr=0x%llx bytes=%ld dst=0 htod=0 dtoh=0 dtod=0",
		           (unsigned long long)(m + HALF), sysconf(_SC_PAGESIZE));
}

static void check_read_mostly(CUdeviceptr m, CUstream s)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	cu_ok(cuMemAdvise(m, MANAGED_BYTES, CU_MEM_ADVISE_SET_READ_MOSTLY, host_location()),
	      "CU_MEM_ADVISE_SET_READ_MOSTLY");
	tap_ok(range_int(m, MANAGED_BYTES, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) == 1,
	       "the range is read-mostly");
	/* The host half moves from the host, the other from device 0. */
	prefetch_ok(m, MANAGED_BYTES, device_location(1), s, "1", HALF, 0, HALF,
	            "prefetch to device 1: host-to-device and peer copies");
	/* Read-mostly: every earlier copy stays, so the host lacks only
	 * the half that was on devices alone. */
	prefetch_ok(m, MANAGED_BYTES, host_location(), s, "host", 0, HALF, 0,
	            "prefetch to the host: only the half it had no copy of");
	prefetch_ok(m, MANAGED_BYTES, device_location(0), s, "0", HALF, 0, 0,
	            "prefetch to device 0: only the half it had no copy of");
	cu_ok(cuMemAdvise(m, page, CU_MEM_ADVISE_UNSET_READ_MOSTLY, host_location()),
	      "CU_MEM_ADVISE_UNSET_READ_MOSTLY on the first page");
	tap_ok(range_int(m, page, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) == 0 &&
	           range_int(m, MANAGED_BYTES, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) == 0 &&
	           range_int(m + page, MANAGED_BYTES - page, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) ==
	               1,
	       "the first page is not read-mostly, the whole neither, the rest is");
	cu_ok(cuMemAdvise(m, MANAGED_BYTES, CU_MEM_ADVISE_UNSET_READ_MOSTLY, host_location()),
	      "CU_MEM_ADVISE_UNSET_READ_MOSTLY on the whole");
}

static void check_advice(CUdeviceptr m)
{
	CUmemLocation numa = { CU_MEM_LOCATION_TYPE_HOST_NUMA, 0 };
	int by[3] = { 0, 0, 0 };

	cu_ok(
	    cuMemAdvise(m, MANAGED_BYTES, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, device_location(1)),
	    "CU_MEM_ADVISE_SET_PREFERRED_LOCATION device 1");
	tap_ok(range_int(m, MANAGED_BYTES, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION) == 1,
	       "the preferred location is device 1");
	tap_ok(range_int(m, MANAGED_BYTES, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE) ==
	           CU_MEM_LOCATION_TYPE_DEVICE,
	       "... of type DEVICE");
	cu_ok(cuMemAdvise(m, HALF, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, host_location()),
	      "CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION on the first half");
	tap_ok(range_int(m, MANAGED_BYTES, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION) ==
	           CU_DEVICE_INVALID,
	       "some pages have none: CU_DEVICE_INVALID");
	cu_ok(cuMemAdvise(m, HALF, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, numa),
	      "CU_MEM_ADVISE_SET_PREFERRED_LOCATION host NUMA node 0");
	tap_ok(range_int(m, HALF, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE) ==
	               CU_MEM_LOCATION_TYPE_HOST_NUMA &&
	           range_int(m, HALF, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID) == 0 &&
	           range_int(m, HALF, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION) == CU_DEVICE_CPU,
	       "the first half prefers host NUMA node 0 (CU_DEVICE_CPU in the old form)");

	cu_ok(cuMemAdvise(m, MANAGED_BYTES, CU_MEM_ADVISE_SET_ACCESSED_BY, device_location(0)),
	      "CU_MEM_ADVISE_SET_ACCESSED_BY device 0");
	cu_ok(cuMemAdvise(m, HALF, CU_MEM_ADVISE_SET_ACCESSED_BY, host_location()),
	      "CU_MEM_ADVISE_SET_ACCESSED_BY the host, first half");
	cu_ok(cuMemRangeGetAttribute(by, sizeof(by), CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m,
	                             MANAGED_BYTES),
	      "CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY of the whole");
	tap_ok(by[0] == 0 && by[1] == CU_DEVICE_INVALID && by[2] == CU_DEVICE_INVALID,
	       "device 0 only, then CU_DEVICE_INVALID (%d %d %d)", by[0], by[1], by[2]);
	cu_ok(cuMemRangeGetAttribute(by, sizeof(by), CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, HALF),
	      "CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY of the first half");
	tap_ok((by[0] == CU_DEVICE_CPU && by[1] == 0) || (by[0] == 0 && by[1] == CU_DEVICE_CPU),
	       "the CPU and device 0 (%d %d %d)", by[0], by[1], by[2]);
	cu_ok(cuMemAdvise(m, MANAGED_BYTES, CU_MEM_ADVISE_UNSET_ACCESSED_BY, device_location(0)),
	      "CU_MEM_ADVISE_UNSET_ACCESSED_BY device 0");
	cu_ok(cuMemRangeGetAttribute(by, sizeof(by), CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, HALF),
	      "CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY again");
	tap_ok(by[0] == CU_DEVICE_CPU && by[1] == CU_DEVICE_INVALID, "the CPU only (%d %d)", by[0],
	       by[1]);
	{
		void *data[2];
		size_t sizes[2] = { 4, 4 };
		CUmem_range_attribute attrs[2] = { CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
			                           CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION };
		int values[2] = { -100, -100 };

		data[0] = &values[0];
		data[1] = &values[1];
		cu_ok(cuMemRangeGetAttributes(data, sizes, attrs, 2, m + HALF, HALF),
		      "cuMemRangeGetAttributes of the second half");
		tap_ok(values[0] == 0 && values[1] == 1,
		       "not read-mostly, prefers device 1 (%d %d)", values[0], values[1]);
	}
}

static void check_errors(CUdeviceptr m, CUdeviceptr d, CUstream s)
{
	CUmemLocation bad_type = { (CUmemLocationType)99, 0 };
	CUmemLocation numa = { CU_MEM_LOCATION_TYPE_HOST_NUMA, 0 };
	char *host = malloc(4096);
	int value = 0;

	cu_fails(cuMemPrefetchAsync(d, 4096, device_location(0), 0, s), CUDA_ERROR_INVALID_VALUE,
	         "cuMemPrefetchAsync_v2", "prefetching device memory, not managed");
	cu_fails(cuMemPrefetchAsync(m, MANAGED_BYTES, device_location(7), 0, s),
	         CUDA_ERROR_INVALID_DEVICE, "cuMemPrefetchAsync_v2", "prefetching to device 7");
	cu_fails(cuMemPrefetchAsync(m, MANAGED_BYTES, device_location(0), 1, s),
	         CUDA_ERROR_INVALID_VALUE, "cuMemPrefetchAsync_v2", "flags 1");
	cu_fails(cuMemPrefetchAsync(m, MANAGED_BYTES, bad_type, 0, s), CUDA_ERROR_INVALID_VALUE,
	         "cuMemPrefetchAsync_v2", "a location of type 99");
	cu_fails(cuMemPrefetchAsync(m, MANAGED_BYTES + 1, device_location(0), 0, s),
	         CUDA_ERROR_INVALID_VALUE, "cuMemPrefetchAsync_v2", "one byte past the allocation");
	cu_fails(cuMemPrefetchAsync(m, 0, device_location(0), 0, s), CUDA_ERROR_INVALID_VALUE,
	         "cuMemPrefetchAsync_v2", "0 bytes");
	cu_fails(cuMemAdvise((CUdeviceptr)(uintptr_t)host, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY,
	                     host_location()),
	         CUDA_ERROR_INVALID_VALUE, "cuMemAdvise_v2",
	         "advice on pageable memory, with no pageable memory access");
	cu_fails(cuMemAdvise(m, MANAGED_BYTES, (CUmem_advise)99, host_location()),
	         CUDA_ERROR_INVALID_VALUE, "cuMemAdvise_v2", "advice 99");
	cu_fails(cuMemAdvise(m, MANAGED_BYTES, CU_MEM_ADVISE_SET_ACCESSED_BY, numa),
	         CUDA_ERROR_INVALID_VALUE, "cuMemAdvise_v2",
	         "CU_MEM_ADVISE_SET_ACCESSED_BY a host NUMA node");
	cu_fails(
	    cuMemAdvise(m, MANAGED_BYTES, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, device_location(9)),
	    CUDA_ERROR_INVALID_DEVICE, "cuMemAdvise_v2", "preferring device 9");
	cu_fails(
	    cuMemRangeGetAttribute(&value, 8, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, MANAGED_BYTES),
	    CUDA_ERROR_INVALID_VALUE, "cuMemRangeGetAttribute", "READ_MOSTLY with 8 bytes");
	cu_fails(cuMemRangeGetAttribute(&value, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 4096),
	         CUDA_ERROR_INVALID_VALUE, "cuMemRangeGetAttribute", "the range of device memory");
	free(host);
}

/* The CUDA 8 form (a CUdevice), through cuGetProcAddress as a program
 * built against CUDA 8 headers gets it. Unsetting read-mostly collapsed
 * every page's copies onto the host, so nothing moves. */
static void check_legacy(CUdeviceptr m, CUstream s)
{
	CUresult(CUDAAPI * legacy)(CUdeviceptr, size_t, CUdevice, CUstream) = NULL;
	CUdriverProcAddressQueryResult status;

	cu_ok(cuGetProcAddress("cuMemPrefetchAsync", (void **)&legacy, 8000, 0, &status),
	      "cuGetProcAddress(cuMemPrefetchAsync, 8000)");
	if (!tap_ok(legacy && status == CU_GET_PROC_ADDRESS_SUCCESS, "found"))
		return;
	if (cu_ok(legacy(m, MANAGED_BYTES, CU_DEVICE_CPU, s), "the CUdevice form to CU_DEVICE_CPU"))
		tap_expect("op=prefetch addr=0x%llx bytes=%zu dst=host htod=0 dtoh=0 dtod=0 "
		           "api=cuMemPrefetchAsync",
		           (unsigned long long)m, MANAGED_BYTES);
}

static void check_capture(CUdeviceptr m)
{
	CUstream s;
	CUgraph graph = NULL;

	cu_ok(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "a stream to capture");
	cu_ok(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), "cuStreamBeginCapture");
	cu_fails(cuMemPrefetchAsync(m, MANAGED_BYTES, device_location(0), 0, s),
	         CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "cuMemPrefetchAsync_v2",
	         "a prefetch in a capture: graphs have no node for it");
	cu_fails(cuStreamEndCapture(s, &graph), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
	         "cuStreamEndCapture", "the capture was invalidated");
	cu_ok(cuStreamDestroy(s), "cuStreamDestroy");
}

/* ------------------------------------------------------------ CUPTI */

static uint8_t *cupti_buffer;
static size_t cupti_valid;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*size = 1 << 16;
	*buffer = aligned_alloc(8, *size);
	*max_records = 0;
}

/* The last completed buffer is kept for main to read. */
static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
	(void)ctx;
	(void)stream;
	(void)size;
	free(cupti_buffer);
	cupti_buffer = buffer;
	cupti_valid = valid;
}

struct um_seen {
	int records, user;
	uint64_t htod, dtoh;
	int htod_dst, dtoh_src;
};

static void read_records(struct um_seen *seen)
{
	CUpti_Activity *record = NULL;

	memset(seen, 0, sizeof(*seen));
	seen->htod_dst = seen->dtoh_src = -1;
	while (cupti_buffer &&
	       cuptiActivityGetNextRecord(cupti_buffer, cupti_valid, &record) == CUPTI_SUCCESS) {
		const CUpti_ActivityUnifiedMemoryCounter3 *um;

		if (record->kind != CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)
			continue;
		um = (const CUpti_ActivityUnifiedMemoryCounter3 *)record;
		seen->records++;
		seen->user += um->flags == CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER &&
		              um->start > 0 && um->start <= um->end;
		if (um->counterKind ==
		    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD) {
			seen->htod += um->value;
			seen->htod_dst = (int)um->dstId;
		} else if (um->counterKind ==
		           CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH) {
			seen->dtoh += um->value;
			seen->dtoh_src = (int)um->srcId;
		}
	}
}

static void check_cupti(CUstream s)
{
	CUpti_ActivityUnifiedMemoryCounterConfig config[3];
	CUpti_ActivityUnifiedMemoryCounterConfig bad;
	struct um_seen seen;
	CUdeviceptr m = 0;

	memset(config, 0, sizeof(config));
	for (int i = 0; i < 3; i++) {
		config[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
		config[i].enable = 1;
	}
	config[0].kind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD;
	config[1].kind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH;
	config[2].kind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD;
	bad = config[0];
	bad.kind = (CUpti_ActivityUnifiedMemoryCounterKind)99;
	tap_ok(cuptiActivityConfigureUnifiedMemoryCounter(&bad, 1) == CUPTI_ERROR_INVALID_PARAMETER,
	       "cuptiActivityConfigureUnifiedMemoryCounter refuses counter kind 99");
	tap_ok(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) == CUPTI_SUCCESS,
	       "cuptiActivityRegisterCallbacks");
	if (cu_ok(cuMemAllocManaged(&m, MANAGED_BYTES, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged"))
		tap_expect("op=alloc kind=managed size=%zu", MANAGED_BYTES);
	/* Not enabled yet: no record. */
	prefetch_ok(m, MANAGED_BYTES, device_location(0), s, "0", MANAGED_BYTES, 0, 0,
	            "a prefetch before UNIFIED_MEMORY_COUNTER is enabled");
	tap_ok(cuptiActivityConfigureUnifiedMemoryCounter(config, 3) == CUPTI_SUCCESS,
	       "cuptiActivityConfigureUnifiedMemoryCounter(HTOD, DTOH, DTOD)");
	tap_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) == CUPTI_SUCCESS,
	       "cuptiActivityEnable(UNIFIED_MEMORY_COUNTER)");
	prefetch_ok(m, MANAGED_BYTES, host_location(), s, "host", 0, MANAGED_BYTES, 0,
	            "device 0 to the host");
	prefetch_ok(m, HALF, device_location(1), s, "1", HALF, 0, 0, "half to device 1");
	cu_ok(cuCtxSynchronize(), "cuCtxSynchronize");
	tap_ok(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) == CUPTI_SUCCESS,
	       "cuptiActivityFlushAll");
	read_records(&seen);
	tap_ok(seen.records == 2, "2 Unified Memory counter records, none for the first (%d)",
	       seen.records);
	tap_ok(seen.user == seen.records, "with the migration cause USER and GPU times");
	tap_ok(seen.dtoh == MANAGED_BYTES && seen.dtoh_src == 0,
	       "BYTES_TRANSFER_DTOH of 1 MiB from device 0 (%llu from %d)",
	       (unsigned long long)seen.dtoh, seen.dtoh_src);
	tap_ok(seen.htod == HALF && seen.htod_dst == 1,
	       "BYTES_TRANSFER_HTOD of 512 KiB to device 1 (%llu to %d)",
	       (unsigned long long)seen.htod, seen.htod_dst);
	cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	if (cu_ok(cuMemFree(m), "cuMemFree"))
		tap_expect("op=free kind=managed size=%zu", MANAGED_BYTES);
	free(cupti_buffer);
	cupti_buffer = NULL;
}

int main(void)
{
	CUdeviceptr m = 0, d = 0;
	CUcontext ctx;
	CUstream s;
	int count = 0;

	printf("# fact pid=%d\n", (int)getpid());
	if (!cu_ok(cuInit(0), "cuInit") || !cu_ok(cuDeviceGetCount(&count), "cuDeviceGetCount") ||
	    !tap_ok(count == 2, "two devices (CUDASIM_DEVICES=2)") ||
	    !cu_ok(cuCtxCreate(&ctx, NULL, 0, 0), "cuCtxCreate") ||
	    !cu_ok(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate"))
		return tap_done();
	if (cu_ok(cuMemAllocManaged(&m, MANAGED_BYTES, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged"))
		tap_expect("op=alloc kind=managed size=%zu", MANAGED_BYTES);
	if (cu_ok(cuMemAlloc(&d, 4096), "cuMemAlloc"))
		tap_expect("op=alloc kind=device size=4096");
	tap_ok(m % 4096 == 0, "the managed allocation starts a page");
	check_prefetch(m, s);
	check_read_mostly(m, s);
	check_advice(m);
	check_errors(m, d, s);
	check_legacy(m, s);
	check_capture(m);
	check_cupti(s);
	cu_ok(cuStreamSynchronize(s), "cuStreamSynchronize");
	if (cu_ok(cuMemFree(m), "cuMemFree(managed)"))
		tap_expect("op=free kind=managed size=%zu", MANAGED_BYTES);
	if (cu_ok(cuMemFree(d), "cuMemFree(device)"))
		tap_expect("op=free kind=device size=4096");
	cu_ok(cuCtxDestroy(ctx), "cuCtxDestroy");
	return tap_done();
}
