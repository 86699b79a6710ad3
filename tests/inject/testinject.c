/* SPDX-License-Identifier: MIT */
/*
 * testinject.c - the tests' injection library (libtestinject.so), loaded
 * through CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH as a tracer would
 * be. It subscribes to CUPTI and writes everything it receives to the file
 * named by TESTINJECT_LOG, one key=value line each, for the checkers of
 * tests/sim/ to compare with the simulator's ledger:
 *
 *   ev=init | nvtx_init | setup | exit_flush | error | dropped
 *   ev=cb domain=driver|runtime site=ENTER|EXIT cbid= name= corr= ...params
 *   ev=resource cbid=  ev=sync cbid=  ev=nvtx cbid= name= message= domain=
 *   ev=act kind=KERNEL|MEMCPY|MEMSET|MEMORY2|RUNTIME|DRIVER|SYNC ...
 *
 * Every line starts with seq= t= pid= tid= and is written with one write(2)
 * on an O_APPEND descriptor.
 */
#include <cupti.h>
#include <generated_nvtx_meta.h>
#include <nvtx3/nvToolsExt.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* Exported by libcupti, declared in no header (CUPTI manual §2.7.3.1). */
extern CUptiResult CUPTIAPI cuptiNvtxInitialize2(void *pfnGetExportTable);

EXPORT int InitializeInjection(void);
EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table);

#define ACTIVITY_BUFFER_BYTES ((size_t)1 << 20)
#define LINE_BYTES            2048
#define MAX_NAMES             64

/* ------------------------------------------------------------ the log */

struct line {
	char text[LINE_BYTES];
	size_t len;
};

static int log_fd = -1;
static pid_t tool_pid;
static atomic_ulong log_seq;

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void __attribute__((format(printf, 2, 3))) add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len >= sizeof(l->text) - 2)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->text + l->len, sizeof(l->text) - 1 - l->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	l->len += (size_t)n;
	if (l->len > sizeof(l->text) - 2)
		l->len = sizeof(l->text) - 2;
}

/* key=value where value is arbitrary text: bytes that would break the
 * key=value format (space, '=', '%', control, non-ASCII) become %XX. */
static void add_text(struct line *l, const char *key, const char *text)
{
	add(l, " %s=", key);
	if (!text) {
		add(l, "(null)");
		return;
	}
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		if (*c <= ' ' || *c == '=' || *c == '%' || *c >= 0x7f)
			add(l, "%%%02X", *c);
		else
			add(l, "%c", *c);
	}
}

static void line_start(struct line *l, const char *event)
{
	l->len = 0;
	add(l, "seq=%lu t=%" PRIu64 " pid=%d tid=%ld ev=%s", atomic_fetch_add(&log_seq, 1) + 1,
	    monotonic_ns(), (int)getpid(), (long)syscall(SYS_gettid), event);
}

static void line_write(struct line *l)
{
	ssize_t n;

	if (log_fd < 0)
		return;
	l->text[l->len++] = '\n';
	do
		n = write(log_fd, l->text, l->len);
	while (n < 0 && errno == EINTR);
}

static void log_error(const char *what, long detail, CUptiResult result)
{
	struct line l;

	line_start(&l, "error");
	add_text(&l, "what", what);
	add(&l, " detail=%ld result=%d", detail, (int)result);
	line_write(&l);
}

static void open_log(void)
{
	const char *path = getenv("TESTINJECT_LOG");

	if (path && *path)
		log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

/* ------------------------------------------------------------ API params */

enum field_kind {
	F_SIZE,     /* size_t, decimal */
	F_U32,      /* unsigned int */
	F_I32,      /* int */
	F_U16,      /* unsigned short */
	F_U8,       /* unsigned char */
	F_PTR,      /* a pointer value */
	F_OUT_PTR,  /* void **: the pointer it receives, at a successful EXIT */
	F_ADDR,     /* CUdeviceptr or a 64-bit handle, hex */
	F_OUT_ADDR, /* CUdeviceptr * or handle *, at a successful EXIT */
	F_UINT3,    /* three consecutive unsigned ints: X,Y,Z */
	F_DIM3,     /* dim3 */
};

struct field {
	const char *key;
	size_t offset;
	enum field_kind kind;
};

#define MAX_FIELDS 5

struct api {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
	unsigned elem; /* memset element size, 0 otherwise */
	struct field fields[MAX_FIELDS];
};

/* Tables read better aligned by hand. */
/* clang-format off */
#define FLD(params, member, kind, key) { key, offsetof(params, member), kind }
#define DRV CUPTI_CB_DOMAIN_DRIVER_API
#define RT CUPTI_CB_DOMAIN_RUNTIME_API
#define D(name) CUPTI_DRIVER_TRACE_CBID_##name
#define R(name) CUPTI_RUNTIME_TRACE_CBID_##name

/* A driver copy cuMemcpyXtoY_v2 and its _ptds twin share one layout. */
#define DRV_COPY(cbid, params, dstm, dstk, srcm, srck)                                    \
	{ DRV, cbid, 0, { FLD(params, dstm, dstk, "dst"), FLD(params, srcm, srck, "src"),  \
			  FLD(params, ByteCount, F_SIZE, "size") } }
#define DRV_COPY_ASYNC(cbid, params, dstm, dstk, srcm, srck)                              \
	{ DRV, cbid, 0, { FLD(params, dstm, dstk, "dst"), FLD(params, srcm, srck, "src"),  \
			  FLD(params, ByteCount, F_SIZE, "size"),                          \
			  FLD(params, hStream, F_PTR, "stream") } }
#define DRV_MEMSET(cbid, params, elem, valm, valk)                                        \
	{ DRV, cbid, elem, { FLD(params, dstDevice, F_ADDR, "dst"),                        \
			     FLD(params, valm, valk, "value"), FLD(params, N, F_SIZE, "count") } }
#define DRV_MEMSET_ASYNC(cbid, params, elem, valm, valk)                                  \
	{ DRV, cbid, elem, { FLD(params, dstDevice, F_ADDR, "dst"),                        \
			     FLD(params, valm, valk, "value"), FLD(params, N, F_SIZE, "count"), \
			     FLD(params, hStream, F_PTR, "stream") } }
#define DRV_LAUNCH(cbid, params)                                                          \
	{ DRV, cbid, 0, { FLD(params, f, F_PTR, "func"),                                   \
			  FLD(params, gridDimX, F_UINT3, "grid"),                          \
			  FLD(params, blockDimX, F_UINT3, "block"),                        \
			  FLD(params, sharedMemBytes, F_U32, "shmem"),                     \
			  FLD(params, hStream, F_PTR, "stream") } }
#define RT_COPY(cbid, params)                                                             \
	{ RT, cbid, 0, { FLD(params, dst, F_PTR, "dst"), FLD(params, src, F_PTR, "src"),   \
			 FLD(params, count, F_SIZE, "size"), FLD(params, kind, F_I32, "kind") } }
#define RT_COPY_ASYNC(cbid, params)                                                       \
	{ RT, cbid, 0, { FLD(params, dst, F_PTR, "dst"), FLD(params, src, F_PTR, "src"),   \
			 FLD(params, count, F_SIZE, "size"), FLD(params, kind, F_I32, "kind"), \
			 FLD(params, stream, F_PTR, "stream") } }
#define RT_MEMSET(cbid, params)                                                           \
	{ RT, cbid, 1, { FLD(params, devPtr, F_PTR, "dst"), FLD(params, value, F_I32, "value"), \
			 FLD(params, count, F_SIZE, "size") } }
#define RT_MEMSET_ASYNC(cbid, params)                                                     \
	{ RT, cbid, 1, { FLD(params, devPtr, F_PTR, "dst"), FLD(params, value, F_I32, "value"), \
			 FLD(params, count, F_SIZE, "size"), FLD(params, stream, F_PTR, "stream") } }
#define RT_LAUNCH(cbid, params)                                                           \
	{ RT, cbid, 0, { FLD(params, func, F_PTR, "func"), FLD(params, gridDim, F_DIM3, "grid"), \
			 FLD(params, blockDim, F_DIM3, "block"),                           \
			 FLD(params, sharedMem, F_SIZE, "shmem"),                          \
			 FLD(params, stream, F_PTR, "stream") } }
#define NO_FIELDS(domain, cbid) { domain, cbid, 0, { { NULL, 0, F_SIZE } } }

/* The calls the tests need, with the parameters worth logging. */
static const struct api apis[] = {
	/* driver: memory */
	{ DRV, D(cuMemAlloc_v2), 0, { FLD(cuMemAlloc_v2_params, dptr, F_OUT_ADDR, "ptr"),
				      FLD(cuMemAlloc_v2_params, bytesize, F_SIZE, "size") } },
	{ DRV, D(cuMemFree_v2), 0, { FLD(cuMemFree_v2_params, dptr, F_ADDR, "ptr") } },
	{ DRV, D(cuMemAllocHost_v2), 0, { FLD(cuMemAllocHost_v2_params, pp, F_OUT_PTR, "ptr"),
					  FLD(cuMemAllocHost_v2_params, bytesize, F_SIZE, "size") } },
	{ DRV, D(cuMemHostAlloc), 0, { FLD(cuMemHostAlloc_params, pp, F_OUT_PTR, "ptr"),
				       FLD(cuMemHostAlloc_params, bytesize, F_SIZE, "size"),
				       FLD(cuMemHostAlloc_params, Flags, F_U32, "flags") } },
	{ DRV, D(cuMemFreeHost), 0, { FLD(cuMemFreeHost_params, p, F_PTR, "ptr") } },
	{ DRV, D(cuMemHostRegister_v2), 0, { FLD(cuMemHostRegister_v2_params, p, F_PTR, "ptr"),
					     FLD(cuMemHostRegister_v2_params, bytesize, F_SIZE, "size"),
					     FLD(cuMemHostRegister_v2_params, Flags, F_U32, "flags") } },
	{ DRV, D(cuMemHostUnregister), 0, { FLD(cuMemHostUnregister_params, p, F_PTR, "ptr") } },
	{ DRV, D(cuMemAllocManaged), 0, { FLD(cuMemAllocManaged_params, dptr, F_OUT_ADDR, "ptr"),
					  FLD(cuMemAllocManaged_params, bytesize, F_SIZE, "size"),
					  FLD(cuMemAllocManaged_params, flags, F_U32, "flags") } },
	{ DRV, D(cuMemAllocAsync), 0, { FLD(cuMemAllocAsync_params, dptr, F_OUT_ADDR, "ptr"),
					FLD(cuMemAllocAsync_params, bytesize, F_SIZE, "size"),
					FLD(cuMemAllocAsync_params, hStream, F_PTR, "stream") } },
	{ DRV, D(cuMemAllocAsync_ptsz), 0,
	  { FLD(cuMemAllocAsync_ptsz_params, dptr, F_OUT_ADDR, "ptr"),
	    FLD(cuMemAllocAsync_ptsz_params, bytesize, F_SIZE, "size"),
	    FLD(cuMemAllocAsync_ptsz_params, hStream, F_PTR, "stream") } },
	{ DRV, D(cuMemFreeAsync), 0, { FLD(cuMemFreeAsync_params, dptr, F_ADDR, "ptr"),
				       FLD(cuMemFreeAsync_params, hStream, F_PTR, "stream") } },
	{ DRV, D(cuMemFreeAsync_ptsz), 0, { FLD(cuMemFreeAsync_ptsz_params, dptr, F_ADDR, "ptr"),
					    FLD(cuMemFreeAsync_ptsz_params, hStream, F_PTR,
						"stream") } },
	/* driver: virtual memory management */
	{ DRV, D(cuMemAddressReserve), 0,
	  { FLD(cuMemAddressReserve_params, ptr, F_OUT_ADDR, "ptr"),
	    FLD(cuMemAddressReserve_params, size, F_SIZE, "size") } },
	{ DRV, D(cuMemAddressFree), 0, { FLD(cuMemAddressFree_params, ptr, F_ADDR, "ptr"),
					 FLD(cuMemAddressFree_params, size, F_SIZE, "size") } },
	{ DRV, D(cuMemCreate), 0, { FLD(cuMemCreate_params, handle, F_OUT_ADDR, "handle"),
				    FLD(cuMemCreate_params, size, F_SIZE, "size") } },
	{ DRV, D(cuMemRelease), 0, { FLD(cuMemRelease_params, handle, F_ADDR, "handle") } },
	{ DRV, D(cuMemMap), 0, { FLD(cuMemMap_params, ptr, F_ADDR, "ptr"),
				 FLD(cuMemMap_params, size, F_SIZE, "size"),
				 FLD(cuMemMap_params, offset, F_SIZE, "offset"),
				 FLD(cuMemMap_params, handle, F_ADDR, "handle") } },
	{ DRV, D(cuMemUnmap), 0, { FLD(cuMemUnmap_params, ptr, F_ADDR, "ptr"),
				   FLD(cuMemUnmap_params, size, F_SIZE, "size") } },
	{ DRV, D(cuMemSetAccess), 0, { FLD(cuMemSetAccess_params, ptr, F_ADDR, "ptr"),
				       FLD(cuMemSetAccess_params, size, F_SIZE, "size") } },
	/* driver: copies */
	DRV_COPY(D(cuMemcpy), cuMemcpy_params, dst, F_ADDR, src, F_ADDR),
	DRV_COPY(D(cuMemcpy_ptds), cuMemcpy_ptds_params, dst, F_ADDR, src, F_ADDR),
	DRV_COPY_ASYNC(D(cuMemcpyAsync), cuMemcpyAsync_params, dst, F_ADDR, src, F_ADDR),
	DRV_COPY_ASYNC(D(cuMemcpyAsync_ptsz), cuMemcpyAsync_ptsz_params, dst, F_ADDR, src,
		       F_ADDR),
	DRV_COPY(D(cuMemcpyHtoD_v2), cuMemcpyHtoD_v2_params, dstDevice, F_ADDR, srcHost, F_PTR),
	DRV_COPY(D(cuMemcpyHtoD_v2_ptds), cuMemcpyHtoD_v2_ptds_params, dstDevice, F_ADDR, srcHost,
		 F_PTR),
	DRV_COPY(D(cuMemcpyDtoH_v2), cuMemcpyDtoH_v2_params, dstHost, F_PTR, srcDevice, F_ADDR),
	DRV_COPY(D(cuMemcpyDtoH_v2_ptds), cuMemcpyDtoH_v2_ptds_params, dstHost, F_PTR, srcDevice,
		 F_ADDR),
	DRV_COPY(D(cuMemcpyDtoD_v2), cuMemcpyDtoD_v2_params, dstDevice, F_ADDR, srcDevice, F_ADDR),
	DRV_COPY(D(cuMemcpyDtoD_v2_ptds), cuMemcpyDtoD_v2_ptds_params, dstDevice, F_ADDR,
		 srcDevice, F_ADDR),
	DRV_COPY_ASYNC(D(cuMemcpyHtoDAsync_v2), cuMemcpyHtoDAsync_v2_params, dstDevice, F_ADDR,
		       srcHost, F_PTR),
	DRV_COPY_ASYNC(D(cuMemcpyHtoDAsync_v2_ptsz), cuMemcpyHtoDAsync_v2_ptsz_params, dstDevice,
		       F_ADDR, srcHost, F_PTR),
	DRV_COPY_ASYNC(D(cuMemcpyDtoHAsync_v2), cuMemcpyDtoHAsync_v2_params, dstHost, F_PTR,
		       srcDevice, F_ADDR),
	DRV_COPY_ASYNC(D(cuMemcpyDtoHAsync_v2_ptsz), cuMemcpyDtoHAsync_v2_ptsz_params, dstHost,
		       F_PTR, srcDevice, F_ADDR),
	DRV_COPY_ASYNC(D(cuMemcpyDtoDAsync_v2), cuMemcpyDtoDAsync_v2_params, dstDevice, F_ADDR,
		       srcDevice, F_ADDR),
	DRV_COPY_ASYNC(D(cuMemcpyDtoDAsync_v2_ptsz), cuMemcpyDtoDAsync_v2_ptsz_params, dstDevice,
		       F_ADDR, srcDevice, F_ADDR),
	/* driver: memsets */
	DRV_MEMSET(D(cuMemsetD8_v2), cuMemsetD8_v2_params, 1, uc, F_U8),
	DRV_MEMSET(D(cuMemsetD8_v2_ptds), cuMemsetD8_v2_ptds_params, 1, uc, F_U8),
	DRV_MEMSET(D(cuMemsetD16_v2), cuMemsetD16_v2_params, 2, us, F_U16),
	DRV_MEMSET(D(cuMemsetD16_v2_ptds), cuMemsetD16_v2_ptds_params, 2, us, F_U16),
	DRV_MEMSET(D(cuMemsetD32_v2), cuMemsetD32_v2_params, 4, ui, F_U32),
	DRV_MEMSET(D(cuMemsetD32_v2_ptds), cuMemsetD32_v2_ptds_params, 4, ui, F_U32),
	DRV_MEMSET_ASYNC(D(cuMemsetD8Async), cuMemsetD8Async_params, 1, uc, F_U8),
	DRV_MEMSET_ASYNC(D(cuMemsetD8Async_ptsz), cuMemsetD8Async_ptsz_params, 1, uc, F_U8),
	DRV_MEMSET_ASYNC(D(cuMemsetD16Async), cuMemsetD16Async_params, 2, us, F_U16),
	DRV_MEMSET_ASYNC(D(cuMemsetD16Async_ptsz), cuMemsetD16Async_ptsz_params, 2, us, F_U16),
	DRV_MEMSET_ASYNC(D(cuMemsetD32Async), cuMemsetD32Async_params, 4, ui, F_U32),
	DRV_MEMSET_ASYNC(D(cuMemsetD32Async_ptsz), cuMemsetD32Async_ptsz_params, 4, ui, F_U32),
	/* driver: launches, synchronisation, set-up */
	DRV_LAUNCH(D(cuLaunchKernel), cuLaunchKernel_params),
	DRV_LAUNCH(D(cuLaunchKernel_ptsz), cuLaunchKernel_ptsz_params),
	NO_FIELDS(DRV, D(cuLaunchKernelEx)),
	NO_FIELDS(DRV, D(cuLaunchKernelEx_ptsz)),
	NO_FIELDS(DRV, D(cuCtxSynchronize)),
	NO_FIELDS(DRV, D(cuCtxSynchronize_v2)),
	NO_FIELDS(DRV, D(cuStreamSynchronize)),
	NO_FIELDS(DRV, D(cuStreamSynchronize_ptsz)),
	NO_FIELDS(DRV, D(cuEventSynchronize)),
	NO_FIELDS(DRV, D(cuEventRecord)),
	NO_FIELDS(DRV, D(cuEventRecord_ptsz)),
	NO_FIELDS(DRV, D(cuInit)),
	NO_FIELDS(DRV, D(cuCtxCreate_v4)),
	NO_FIELDS(DRV, D(cuModuleLoad)),
	NO_FIELDS(DRV, D(cuModuleLoadData)),

	/* runtime: memory */
	{ RT, R(cudaMalloc_v3020), 0, { FLD(cudaMalloc_v3020_params, devPtr, F_OUT_PTR, "ptr"),
					FLD(cudaMalloc_v3020_params, size, F_SIZE, "size") } },
	{ RT, R(cudaFree_v3020), 0, { FLD(cudaFree_v3020_params, devPtr, F_PTR, "ptr") } },
	{ RT, R(cudaMallocHost_v3020), 0,
	  { FLD(cudaMallocHost_v3020_params, ptr, F_OUT_PTR, "ptr"),
	    FLD(cudaMallocHost_v3020_params, size, F_SIZE, "size") } },
	{ RT, R(cudaHostAlloc_v3020), 0, { FLD(cudaHostAlloc_v3020_params, pHost, F_OUT_PTR, "ptr"),
					   FLD(cudaHostAlloc_v3020_params, size, F_SIZE, "size"),
					   FLD(cudaHostAlloc_v3020_params, flags, F_U32, "flags") } },
	{ RT, R(cudaFreeHost_v3020), 0, { FLD(cudaFreeHost_v3020_params, ptr, F_PTR, "ptr") } },
	{ RT, R(cudaHostRegister_v4000), 0,
	  { FLD(cudaHostRegister_v4000_params, ptr, F_PTR, "ptr"),
	    FLD(cudaHostRegister_v4000_params, size, F_SIZE, "size"),
	    FLD(cudaHostRegister_v4000_params, flags, F_U32, "flags") } },
	{ RT, R(cudaHostUnregister_v4000), 0,
	  { FLD(cudaHostUnregister_v4000_params, ptr, F_PTR, "ptr") } },
	{ RT, R(cudaMallocManaged_v6000), 0,
	  { FLD(cudaMallocManaged_v6000_params, devPtr, F_OUT_PTR, "ptr"),
	    FLD(cudaMallocManaged_v6000_params, size, F_SIZE, "size"),
	    FLD(cudaMallocManaged_v6000_params, flags, F_U32, "flags") } },
	{ RT, R(cudaMallocAsync_v11020), 0,
	  { FLD(cudaMallocAsync_v11020_params, devPtr, F_OUT_PTR, "ptr"),
	    FLD(cudaMallocAsync_v11020_params, size, F_SIZE, "size"),
	    FLD(cudaMallocAsync_v11020_params, hStream, F_PTR, "stream") } },
	{ RT, R(cudaFreeAsync_v11020), 0,
	  { FLD(cudaFreeAsync_v11020_params, devPtr, F_PTR, "ptr"),
	    FLD(cudaFreeAsync_v11020_params, hStream, F_PTR, "stream") } },
	/* runtime: copies, memsets, launches */
	RT_COPY(R(cudaMemcpy_v3020), cudaMemcpy_v3020_params),
	RT_COPY(R(cudaMemcpy_ptds_v7000), cudaMemcpy_ptds_v7000_params),
	RT_COPY_ASYNC(R(cudaMemcpyAsync_v3020), cudaMemcpyAsync_v3020_params),
	RT_COPY_ASYNC(R(cudaMemcpyAsync_ptsz_v7000), cudaMemcpyAsync_ptsz_v7000_params),
	RT_MEMSET(R(cudaMemset_v3020), cudaMemset_v3020_params),
	RT_MEMSET(R(cudaMemset_ptds_v7000), cudaMemset_ptds_v7000_params),
	RT_MEMSET_ASYNC(R(cudaMemsetAsync_v3020), cudaMemsetAsync_v3020_params),
	RT_MEMSET_ASYNC(R(cudaMemsetAsync_ptsz_v7000), cudaMemsetAsync_ptsz_v7000_params),
	RT_LAUNCH(R(cudaLaunchKernel_v7000), cudaLaunchKernel_v7000_params),
	RT_LAUNCH(R(cudaLaunchKernel_ptsz_v7000), cudaLaunchKernel_ptsz_v7000_params),
	/* <<<>>> in CUDA 13: no params struct in the headers; symbolName names it. */
	NO_FIELDS(RT, R(__cudaLaunchKernel_v13000)),
	NO_FIELDS(RT, R(__cudaLaunchKernel_ptsz_v13000)),
	/* runtime: synchronisation, streams, events */
	NO_FIELDS(RT, R(cudaDeviceSynchronize_v3020)),
	NO_FIELDS(RT, R(cudaStreamSynchronize_v3020)),
	NO_FIELDS(RT, R(cudaStreamSynchronize_ptsz_v7000)),
	NO_FIELDS(RT, R(cudaStreamCreate_v3020)),
	NO_FIELDS(RT, R(cudaStreamCreateWithFlags_v5000)),
	NO_FIELDS(RT, R(cudaStreamDestroy_v5050)),
	NO_FIELDS(RT, R(cudaEventRecord_v3020)),
	NO_FIELDS(RT, R(cudaEventSynchronize_v3020)),
	NO_FIELDS(RT, R(cudaMemGetInfo_v3020)),
	NO_FIELDS(RT, R(cudaSetDevice_v3020)),
};
/* clang-format on */

static const struct api *find_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
		if (apis[i].domain == domain && apis[i].cbid == cbid)
			return &apis[i];
	return NULL;
}

static void add_field(struct line *l, const struct field *f, const void *params, int exit_ok)
{
	const char *at = (const char *)params + f->offset;

	switch (f->kind) {
	case F_SIZE:
		add(l, " %s=%zu", f->key, *(const size_t *)at);
		break;
	case F_U32:
		add(l, " %s=%u", f->key, *(const unsigned *)at);
		break;
	case F_I32:
		add(l, " %s=%d", f->key, *(const int *)at);
		break;
	case F_U16:
		add(l, " %s=%u", f->key, (unsigned)*(const unsigned short *)at);
		break;
	case F_U8:
		add(l, " %s=%u", f->key, (unsigned)*(const unsigned char *)at);
		break;
	case F_PTR:
		add(l, " %s=0x%" PRIxPTR, f->key, (uintptr_t) * (void *const *)at);
		break;
	case F_OUT_PTR: {
		void **out = *(void **const *)at;
		if (exit_ok && out)
			add(l, " %s=0x%" PRIxPTR, f->key, (uintptr_t)*out);
		break;
	}
	case F_ADDR:
		add(l, " %s=0x%llx", f->key, *(const unsigned long long *)at);
		break;
	case F_OUT_ADDR: {
		unsigned long long *out = *(unsigned long long *const *)at;
		if (exit_ok && out)
			add(l, " %s=0x%llx", f->key, *out);
		break;
	}
	case F_UINT3: {
		const unsigned *v = (const unsigned *)at;
		add(l, " %s=%u,%u,%u", f->key, v[0], v[1], v[2]);
		break;
	}
	case F_DIM3: {
		const dim3 *d = (const dim3 *)at;
		add(l, " %s=%u,%u,%u", f->key, d->x, d->y, d->z);
		break;
	}
	}
}

/* A value in *correlationData at ENTER that EXIT must see again. */
static uint64_t correlation_mark(uint32_t corr)
{
	return ((uint64_t)corr << 20) ^ 0x5eedu;
}

static void log_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData *d)
{
	const struct api *api = find_api(domain, cbid);
	int exiting = d->callbackSite == CUPTI_API_EXIT;
	int result = 0, exit_ok = 0;
	struct line l;

	if (exiting && d->functionReturnValue) {
		/* CUresult and cudaError_t are both int-sized enums. */
		result = *(const int *)d->functionReturnValue;
		exit_ok = result == 0;
	}
	line_start(&l, "cb");
	add(&l, " domain=%s site=%s cbid=%u",
	    domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver" : "runtime", exiting ? "EXIT" : "ENTER",
	    (unsigned)cbid);
	add_text(&l, "name", d->functionName);
	add(&l, " corr=%u ctx=0x%" PRIxPTR, d->correlationId, (uintptr_t)d->context);
	if (d->symbolName)
		add_text(&l, "symbol", d->symbolName);
	if (api && api->elem)
		add(&l, " elem=%u", api->elem);
	for (int i = 0; api && d->functionParams && i < MAX_FIELDS && api->fields[i].key; i++)
		add_field(&l, &api->fields[i], d->functionParams, exit_ok);
	if (d->correlationData) {
		if (!exiting)
			*d->correlationData = correlation_mark(d->correlationId);
		else
			add(&l, " cdata_ok=%d",
			    *d->correlationData == correlation_mark(d->correlationId));
	}
	if (exiting)
		add(&l, " ret=%s", d->functionReturnValue ? "" : "none");
	if (exiting && d->functionReturnValue)
		add(&l, "%d", result);
	line_write(&l);
}

static void log_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *d)
{
	uint32_t context_id = 0, stream_id = 0;
	struct line l;

	line_start(&l, "resource");
	add(&l, " cbid=%u ctx=0x%" PRIxPTR, (unsigned)cbid, (uintptr_t)d->context);
	if (d->context && cuptiGetContextId(d->context, &context_id) == CUPTI_SUCCESS)
		add(&l, " ctxid=%u", context_id);
	if (cbid == CUPTI_CBID_RESOURCE_STREAM_CREATED ||
	    cbid == CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING) {
		add(&l, " handle=0x%" PRIxPTR, (uintptr_t)d->resourceHandle.stream);
		if (cuptiGetStreamIdEx(d->context, d->resourceHandle.stream, 0, &stream_id) ==
		    CUPTI_SUCCESS)
			add(&l, " streamid=%u", stream_id);
	}
	line_write(&l);
}

static void log_sync(CUpti_CallbackId cbid, const CUpti_SynchronizeData *d)
{
	uint32_t stream_id = 0;
	struct line l;

	line_start(&l, "sync");
	add(&l, " cbid=%u ctx=0x%" PRIxPTR " handle=0x%" PRIxPTR, (unsigned)cbid,
	    (uintptr_t)d->context, (uintptr_t)d->stream);
	if (d->stream && cuptiGetStreamIdEx(d->context, d->stream, 0, &stream_id) == CUPTI_SUCCESS)
		add(&l, " streamid=%u", stream_id);
	line_write(&l);
}

/* ------------------------------------------------------------ NVTX */

/* Handles the program registered, to name registered messages and domains. */
struct handle_name {
	const void *handle;
	char name[128];
};

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct handle_name names[MAX_NAMES];
static int name_count;

static void remember(const void *handle, const char *name)
{
	if (!handle || !name)
		return;
	pthread_mutex_lock(&names_lock);
	if (name_count < MAX_NAMES) {
		names[name_count].handle = handle;
		snprintf(names[name_count].name, sizeof(names[name_count].name), "%s", name);
		name_count++;
	}
	pthread_mutex_unlock(&names_lock);
}

static void add_name_of(struct line *l, const char *key, const void *handle)
{
	char copy[128] = "";

	pthread_mutex_lock(&names_lock);
	for (int i = 0; i < name_count; i++)
		if (names[i].handle == handle)
			snprintf(copy, sizeof(copy), "%s", names[i].name);
	pthread_mutex_unlock(&names_lock);
	if (copy[0])
		add_text(l, key, copy);
	else
		add(l, " %s=unknown:0x%" PRIxPTR, key, (uintptr_t)handle);
}

static void add_attributes(struct line *l, const nvtxEventAttributes_t *attr)
{
	if (!attr) {
		add(l, " message=(null)");
		return;
	}
	switch (attr->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		add_text(l, "message", attr->message.ascii);
		break;
	case NVTX_MESSAGE_TYPE_REGISTERED:
		add_name_of(l, "message", attr->message.registered);
		add(l, " registered=1");
		break;
	default:
		add(l, " message_type=%d", (int)attr->messageType);
		break;
	}
}

static void log_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData *d)
{
	const void *p = d->functionParams;
	const void *ret = d->functionReturnValue;
	struct line l;

	line_start(&l, "nvtx");
	add(&l, " cbid=%u", (unsigned)cbid);
	add_text(&l, "name", d->functionName);
	switch (cbid) {
	case CUPTI_CBID_NVTX_nvtxMarkA:
	case CUPTI_CBID_NVTX_nvtxRangeStartA:
	case CUPTI_CBID_NVTX_nvtxRangePushA:
		add_text(&l, "message", p ? ((const nvtxMarkA_params *)p)->message : NULL);
		break;
	case CUPTI_CBID_NVTX_nvtxMarkEx:
	case CUPTI_CBID_NVTX_nvtxRangeStartEx:
	case CUPTI_CBID_NVTX_nvtxRangePushEx:
		add_attributes(&l, p ? ((const nvtxMarkEx_params *)p)->eventAttrib : NULL);
		break;
	case CUPTI_CBID_NVTX_nvtxRangeEnd:
		if (p)
			add(&l, " id=%" PRIu64, (uint64_t)((const nvtxRangeEnd_params *)p)->id);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainMarkEx:
	case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
	case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
		if (p) {
			const nvtxDomainRangePushEx_params *dp = p;
			add_attributes(&l, dp->core.eventAttrib);
			add_name_of(&l, "domain", dp->domain);
		}
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
	case CUPTI_CBID_NVTX_nvtxDomainRangePop:
		if (p)
			add_name_of(&l, "domain", ((const nvtxDomainRangePop_params *)p)->domain);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA:
		if (p) {
			const nvtxDomainRegisterStringA_params *rp = p;
			add_text(&l, "message", rp->string);
			add_name_of(&l, "domain", rp->domain);
			if (ret)
				remember(*(const nvtxStringHandle_t *)ret, rp->string);
		}
		break;
	case CUPTI_CBID_NVTX_nvtxDomainCreateA:
		if (p) {
			const char *name = ((const nvtxDomainCreateA_params *)p)->name;
			add_text(&l, "message", name);
			if (ret)
				remember(*(const nvtxDomainHandle_t *)ret, name);
		}
		break;
	default:
		break;
	}
	if (!ret)
		add(&l, " ret=none");
	else if (cbid == CUPTI_CBID_NVTX_nvtxRangeStartA ||
	         cbid == CUPTI_CBID_NVTX_nvtxRangeStartEx ||
	         cbid == CUPTI_CBID_NVTX_nvtxDomainRangeStartEx)
		add(&l, " ret=%" PRIu64, (uint64_t) * (const nvtxRangeId_t *)ret);
	else if (cbid == CUPTI_CBID_NVTX_nvtxRangePushA ||
	         cbid == CUPTI_CBID_NVTX_nvtxRangePushEx || cbid == CUPTI_CBID_NVTX_nvtxRangePop ||
	         cbid == CUPTI_CBID_NVTX_nvtxDomainRangePushEx ||
	         cbid == CUPTI_CBID_NVTX_nvtxDomainRangePop)
		add(&l, " ret=%d", *(const int *)ret);
	line_write(&l);
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *cbdata)
{
	if (getpid() != tool_pid || !cbdata)
		return;
	switch (domain) {
	case CUPTI_CB_DOMAIN_DRIVER_API:
	case CUPTI_CB_DOMAIN_RUNTIME_API:
		log_api(domain, cbid, cbdata);
		break;
	case CUPTI_CB_DOMAIN_RESOURCE:
		log_resource(cbid, cbdata);
		break;
	case CUPTI_CB_DOMAIN_SYNCHRONIZE:
		log_sync(cbid, cbdata);
		break;
	case CUPTI_CB_DOMAIN_NVTX:
		log_nvtx(cbid, cbdata);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------ activity */

static void log_kernel(struct line *l, const CUpti_ActivityKernel10 *k)
{
	add(l, " kind=KERNEL corr=%u start=%" PRIu64 " end=%" PRIu64, k->correlationId, k->start,
	    k->end);
	add_text(l, "name", k->name);
	add(l, " grid=%d,%d,%d block=%d,%d,%d shmem=%d stream=%u dev=%u ctxid=%u", k->gridX,
	    k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ, k->dynamicSharedMemory,
	    k->streamId, k->deviceId, k->contextId);
}

static void log_memcpy(struct line *l, const CUpti_ActivityMemcpy6 *m)
{
	add(l,
	    " kind=MEMCPY corr=%u rcorr=%u bytes=%" PRIu64 " copyKind=%u srcKind=%u dstKind=%u"
	    " start=%" PRIu64 " end=%" PRIu64 " stream=%u dev=%u ctxid=%u",
	    m->correlationId, m->runtimeCorrelationId, m->bytes, (unsigned)m->copyKind,
	    (unsigned)m->srcKind, (unsigned)m->dstKind, m->start, m->end, m->streamId, m->deviceId,
	    m->contextId);
}

static void log_memset(struct line *l, const CUpti_ActivityMemset4 *m)
{
	add(l,
	    " kind=MEMSET corr=%u bytes=%" PRIu64 " value=%u start=%" PRIu64 " end=%" PRIu64
	    " stream=%u dev=%u ctxid=%u",
	    m->correlationId, m->bytes, m->value, m->start, m->end, m->streamId, m->deviceId,
	    m->contextId);
}

static void log_memory(struct line *l, const CUpti_ActivityMemory4 *m)
{
	add(l,
	    " kind=MEMORY2 corr=%u memop=%u memkind=%u addr=0x%" PRIx64 " bytes=%" PRIu64
	    " ts=%" PRIu64 " async=%u stream=%u dev=%u",
	    m->correlationId, (unsigned)m->memoryOperationType, (unsigned)m->memoryKind, m->address,
	    m->bytes, m->timestamp, (unsigned)m->isAsync, m->streamId, m->deviceId);
}

static void log_api_record(struct line *l, const CUpti_ActivityAPI *a)
{
	add(l,
	    " kind=%s cbid=%u corr=%u start=%" PRIu64 " end=%" PRIu64 " rec_tid=%u rec_pid=%u"
	    " ret=%u",
	    a->kind == CUPTI_ACTIVITY_KIND_DRIVER ? "DRIVER" : "RUNTIME", (unsigned)a->cbid,
	    a->correlationId, a->start, a->end, a->threadId, a->processId, a->returnValue);
}

static void log_synchronization(struct line *l, const CUpti_ActivitySynchronization2 *s)
{
	add(l, " kind=SYNC type=%u corr=%u start=%" PRIu64 " end=%" PRIu64 " stream=%u",
	    (unsigned)s->type, s->correlationId, s->start, s->end, s->streamId);
}

static void log_record(const CUpti_Activity *record)
{
	struct line l;

	line_start(&l, "act");
	switch (record->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
	case CUPTI_ACTIVITY_KIND_KERNEL:
		log_kernel(&l, (const CUpti_ActivityKernel10 *)record);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		log_memcpy(&l, (const CUpti_ActivityMemcpy6 *)record);
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		log_memset(&l, (const CUpti_ActivityMemset4 *)record);
		break;
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		log_memory(&l, (const CUpti_ActivityMemory4 *)record);
		break;
	case CUPTI_ACTIVITY_KIND_DRIVER:
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		log_api_record(&l, (const CUpti_ActivityAPI *)record);
		break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		log_synchronization(&l, (const CUpti_ActivitySynchronization2 *)record);
		break;
	default:
		add(&l, " kind=%d", (int)record->kind);
		break;
	}
	line_write(&l);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	void *memory = NULL;

	*max_records = 0;
	if (posix_memalign(&memory, 8, ACTIVITY_BUFFER_BYTES) != 0) {
		*buffer = NULL;
		*size = 0;
		return;
	}
	*buffer = memory;
	*size = ACTIVITY_BUFFER_BYTES;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                      size_t size, size_t valid_size)
{
	CUpti_Activity *record = NULL;
	CUptiResult r;
	size_t dropped = 0;

	while ((r = cuptiActivityGetNextRecord(buffer, valid_size, &record)) == CUPTI_SUCCESS)
		log_record(record);
	if (r != CUPTI_ERROR_MAX_LIMIT_REACHED)
		log_error("cuptiActivityGetNextRecord", (long)valid_size, r);
	free(buffer);
	r = cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped);
	if (r != CUPTI_SUCCESS) {
		log_error("cuptiActivityGetNumDroppedRecords", 0, r);
	} else if (dropped) {
		struct line l;

		line_start(&l, "dropped");
		add(&l, " count=%zu", dropped);
		line_write(&l);
	}
}

static uint64_t CUPTIAPI timestamp_ns(void)
{
	return monotonic_ns();
}

/* ------------------------------------------------------------ set-up */

static const CUpti_ActivityKind activity_kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_MEMORY2,
	CUPTI_ACTIVITY_KIND_RUNTIME,
	CUPTI_ACTIVITY_KIND_DRIVER,
	CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
};

static CUpti_SubscriberHandle subscriber;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

static void at_exit(void)
{
	struct line l;
	CUptiResult r;

	/* A forked child inherits the handler but not CUPTI's threads. */
	if (getpid() != tool_pid)
		return;
	r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	line_start(&l, "exit_flush");
	add(&l, " result=%d", (int)r);
	line_write(&l);
}

static int enable_callbacks(void)
{
	static const CUpti_CallbackDomain domains[] = { CUPTI_CB_DOMAIN_NVTX,
		                                        CUPTI_CB_DOMAIN_RESOURCE,
		                                        CUPTI_CB_DOMAIN_SYNCHRONIZE };
	CUptiResult r;
	int good = 1;

	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++) {
		r = cuptiEnableCallback(1, subscriber, apis[i].domain, apis[i].cbid);
		if (r != CUPTI_SUCCESS) {
			log_error("cuptiEnableCallback", (long)apis[i].cbid, r);
			good = 0;
		}
	}
	for (size_t i = 0; i < sizeof(domains) / sizeof(domains[0]); i++) {
		r = cuptiEnableDomain(1, subscriber, domains[i]);
		if (r != CUPTI_SUCCESS) {
			log_error("cuptiEnableDomain", (long)domains[i], r);
			good = 0;
		}
	}
	return good;
}

static void enable_activity(void)
{
	CUptiResult r;

	/* Before any kind is enabled, so that every record uses this clock. */
	r = cuptiActivityRegisterTimestampCallback(timestamp_ns);
	if (r != CUPTI_SUCCESS)
		log_error("cuptiActivityRegisterTimestampCallback", 0, r);
	r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (r != CUPTI_SUCCESS) {
		log_error("cuptiActivityRegisterCallbacks", 0, r);
		return;
	}
	for (size_t i = 0; i < sizeof(activity_kinds) / sizeof(activity_kinds[0]); i++) {
		r = cuptiActivityEnable(activity_kinds[i]);
		if (r != CUPTI_SUCCESS)
			log_error("cuptiActivityEnable", (long)activity_kinds[i], r);
	}
}

static void setup(void)
{
	struct line l;
	CUptiResult r;

	tool_pid = getpid();
	open_log();
	line_start(&l, "setup");
	line_write(&l);
	r = cuptiSubscribe(&subscriber, on_callback, NULL);
	if (r != CUPTI_SUCCESS) {
		log_error("cuptiSubscribe", 0, r);
		return;
	}
	enable_callbacks();
	enable_activity();
	if (atexit(at_exit) != 0)
		log_error("atexit", 0, CUPTI_SUCCESS);
}

/* Called by the driver, once, from the first cuInit. */
int InitializeInjection(void)
{
	struct line l;

	pthread_once(&setup_once, setup);
	line_start(&l, "init");
	line_write(&l);
	return 1;
}

/* Called by each NVTX instance (one per module) on its first NVTX call,
 * possibly before any cuInit: set up CUPTI, then let it fill the tables. */
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
	struct line l;
	CUptiResult r;

	pthread_once(&setup_once, setup);
	r = cuptiNvtxInitialize2((void *)get_export_table);
	line_start(&l, "nvtx_init");
	add(&l, " result=%d", (int)r);
	line_write(&l);
	return r == CUPTI_SUCCESS;
}
