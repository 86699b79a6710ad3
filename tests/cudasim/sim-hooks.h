/* SPDX-License-Identifier: MIT */
/*
 * sim-hooks.h - private interface between the libraries of the simulated GPU.
 *
 * The simulated stack mirrors the real one: libcudart.so.13 sits on
 * libcuda.so.1, and libcupti.so.13 attaches to the driver as a profiler.
 * The driver owns every instrumentation point (API callback sites,
 * correlation ids, activity records, the ledger) because in the real stack
 * it is the driver that knows when GPU work starts and ends; CUPTI owns the
 * subscriber, the enabled callback set, the clock, and the activity buffers.
 *
 * These symbols are exported by libcuda.so.1 under the sim_ prefix.
 * Nothing outside tests/cudasim may use them: a real driver has none.
 */
#ifndef CUDASIM_SIM_HOOKS_H
#define CUDASIM_SIM_HOOKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <cuda.h>
#include <cupti.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_EXPORT __attribute__((visibility("default")))

/*
 * The profiler side, registered by libcupti.so.13. Every member may be
 * called from any application thread, concurrently, and must not call back
 * into the driver's public API.
 */
struct sim_profiler {
	/* Non-zero when the subscriber enabled (domain, cbid). Cheap. */
	int (*callback_enabled)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
	/* Deliver one callback; cbdata is a CUpti_CallbackData (driver and
	 * runtime domains), CUpti_ResourceData or CUpti_SynchronizeData. */
	void (*callback)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *cbdata);
	/* Non-zero when the activity kind is enabled. Cheap. */
	int (*activity_enabled)(CUpti_ActivityKind kind);
	/*
	 * One activity record, a CUDA 13 struct (CUpti_ActivityKernel10,
	 * CUpti_ActivityMemcpy6, ...) whose kind field says which. All its
	 * timestamps are CLOCK_MONOTONIC nanoseconds; CUPTI converts them to
	 * the subscriber's clock. Strings it points to are valid only during
	 * the call: CUPTI copies them. complete_ns is when the GPU finishes
	 * the work (CLOCK_MONOTONIC): cuptiActivityFlushAll(0) holds the
	 * record back until then.
	 */
	void (*activity)(const CUpti_Activity *record, uint64_t complete_ns);
	/* Non-zero when cuptiActivityConfigureUnifiedMemoryCounter enabled
	 * the Unified Memory counter kind. Cheap. */
	int (*um_counter_enabled)(CUpti_ActivityUnifiedMemoryCounterKind kind);
};

/* Attach the profiler (NULL detaches). Returns 0. */
SIM_EXPORT int sim_profiler_attach(const struct sim_profiler *profiler);

/*
 * One API call, on the caller's stack, from sim_api_enter to sim_api_exit.
 * Both the driver's own entry points and libcudart's use it, so that the
 * rules live in one place:
 *  - one process-wide correlation id counter, starting at 1, one id per
 *    reported call;
 *  - while a runtime call is active on the thread, the driver calls it
 *    makes are not reported (no callbacks, no DRIVER records, no id) unless
 *    CUDASIM_NESTED_DRIVER_CALLBACKS=1; GPU work they start carries the
 *    runtime call's correlation id;
 *  - ENTER and EXIT share correlationId and *correlationData;
 *    functionReturnValue is set at EXIT only;
 *  - a DRIVER or RUNTIME activity record (CUpti_ActivityAPI) at exit when
 *    that kind is enabled.
 * The ledger's api= field names the outermost call on the thread.
 */
struct sim_api_call {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
	const char *name;  /* static string, e.g. "cudaMalloc" */
	int reported;      /* callbacks and records are produced for it */
	uint64_t start_ns; /* CLOCK_MONOTONIC at enter */
	uint64_t correlation_data;
	CUpti_CallbackData data;
	struct sim_api_call *outer; /* enclosing call on this thread, or NULL */
	int per_thread;             /* opened for a _ptds/_ptsz twin: sim_api_per_thread */
};

/*
 * Begin a call. params points to the matching *_params struct of
 * generated_cuda_meta.h / generated_cuda_runtime_api_meta.h (or NULL where
 * the headers have none). symbol is the kernel name for launch calls, else
 * NULL.
 */
SIM_EXPORT void sim_api_enter(struct sim_api_call *call, CUpti_CallbackDomain domain,
                              CUpti_CallbackId cbid, const char *name, void *params,
                              const char *symbol);
/* End a call. result is the CUresult or cudaError_t it returns. A non-zero
 * result also writes an "op=error" ledger line. */
SIM_EXPORT void sim_api_exit(struct sim_api_call *call, int result);
/* As sim_api_exit, with the result's name for the "op=error" line:
 * libcudart passes cudaGetErrorName(result), which the driver cannot know. */
SIM_EXPORT void sim_api_exit_named(struct sim_api_call *call, int result, const char *result_name);

/*
 * The per-thread default stream twins. cuda.h and cuda_runtime_api.h give
 * many functions a twin, NAME_ptds or NAME_ptsz (__CUDA_API_PTDS,
 * __CUDA_API_PTSZ, __CUDART_API_PTDS, __CUDART_API_PTSZ), that programs
 * compiled with --default-stream per-thread (CUDA_API_PER_THREAD_DEFAULT_STREAM)
 * call instead: the same function, but the default stream is the calling
 * thread's own, not the legacy one ("Per-thread default stream",
 * https://docs.nvidia.com/cuda/cuda-runtime-api/stream-sync-behavior.html,
 * https://docs.nvidia.com/cuda/cuda-driver-api/stream-sync-behavior.html;
 * cuda.h, CU_STREAM_PER_THREAD). CUPTI reports the twin under its own
 * callback id and name, with its own params struct.
 *
 * The twins are generated (tools/gen-twins.sh): each announces itself with
 * sim_api_twin_begin, then calls its legacy function NAME with a stream 0
 * argument made CU_STREAM_PER_THREAD. The first call frame that NAME opens
 * on the thread (sim_api_enter, same domain, same name) is the twin's: it
 * takes the twin's callback id, name and params, and is marked per-thread
 * (sim_api_per_thread), for what the stream arguments do not say (a
 * synchronous copy's stream, a stream inside a struct). sim_api_twin_end
 * closes the announcement; a twin whose legacy function opened no frame is
 * a simulator bug, and aborts.
 */
struct sim_api_twin {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
	const char *name;   /* the twin's, e.g. "cuMemcpyAsync_ptsz" */
	const char *legacy; /* the frame name NAME opens, e.g. "cuMemcpyAsync" */
	void *params;       /* the twin's *_params struct, or NULL */
	int taken;          /* set when a frame took it */
};
SIM_EXPORT void sim_api_twin_begin(struct sim_api_twin *twin);
SIM_EXPORT void sim_api_twin_end(struct sim_api_twin *twin);
/* Non-zero when the innermost call frame on this thread is a twin's: its
 * default stream (CU_STREAM_LEGACY otherwise) is CU_STREAM_PER_THREAD. */
SIM_EXPORT int sim_api_per_thread(void);

/* Correlation id that GPU work started now on this thread carries: the
 * outermost reported call's (0 outside any call). */
SIM_EXPORT uint32_t sim_current_correlation_id(void);
/* Correlation id of the innermost reported runtime call (0 if none). */
SIM_EXPORT uint32_t sim_current_runtime_correlation_id(void);
/* Name of the outermost call on this thread, for the ledger ("-" if none). */
SIM_EXPORT const char *sim_current_api_name(void);

/* Ids that cuptiGetContextId / cuptiGetDeviceId / cuptiGetStreamIdEx
 * report; they match the activity records and the ledger. Return 0 on
 * success, a CUresult otherwise. */
SIM_EXPORT int sim_context_id(CUcontext ctx, uint32_t *id);
SIM_EXPORT int sim_context_device(CUcontext ctx, uint32_t *device);
SIM_EXPORT int sim_stream_id(CUcontext ctx, CUstream stream, uint64_t *id);

/*
 * This process's use of device `ordinal`, for NVML, which must not call the
 * CUDA API: *used = bytes reserved in the device heap by this process
 * (contexts included, other processes not), *total = the device memory.
 * Returns 0, or -1 when ordinal names no device. libnvidia-ml.so.1 looks it
 * up with dlsym and counts 0 when the driver is not loaded.
 */
SIM_EXPORT int sim_device_memory_usage(int ordinal, uint64_t *used, uint64_t *total);

/*
 * The ledger: when CUDASIM_LEDGER names a file, one line per operation,
 * written with a single write(2) on an O_APPEND descriptor so that a
 * SIGKILL leaves every finished line intact. Format: see README.md.
 * sim_ledger adds the common prefix (seq, t, pid, tid) itself.
 */
SIM_EXPORT void sim_ledger(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
SIM_EXPORT int sim_ledger_enabled(void);

/* CLOCK_MONOTONIC in nanoseconds: the simulator's only clock. */
SIM_EXPORT uint64_t sim_now_ns(void);

/*
 * Kernel name of a CUfunction (NULL if the handle is not one), for the
 * runtime, which launches through cuLaunchKernel but must name the kernel in
 * its own launch callbacks.
 */
SIM_EXPORT const char *sim_function_name(CUfunction f);

/*
 * Load a module whose kernels are known by name: libcudart registers
 * nvcc's fat binaries this way, from the names __cudaRegisterFunction gives
 * it, because the device code inside may be compressed. image (nvcc's fat
 * binary wrapper, or NULL) is read for what its readable device code says
 * of those kernels. Goes through the same module table as cuModuleLoadData
 * (MODULE_LOADED resource callback).
 */
SIM_EXPORT CUresult sim_module_load_names(CUmodule *module, const void *image,
                                          const char *const *names, size_t count);

#ifdef __cplusplus
}
#endif
#endif /* CUDASIM_SIM_HOOKS_H */
