/* SPDX-License-Identifier: MIT */
/*
 * driver-context.c - primary and created contexts, each thread's stack of
 * current contexts, context synchronisation, limits and peer access.
 *
 * A context takes CUDASIM_CONTEXT_MEMORY of its device's memory and gets
 * its legacy stream when it is created; destroying it fires
 * CONTEXT_DESTROY_STARTING first, then waits for the device, unloads its
 * modules and releases its streams and memory. Context structs are never
 * freed (driver-internal.h), so stale handles are safe to check.
 *
 * Locks: ctx_lock guards the registry and peer lists only, and is never
 * held while calling into other files. primary_lock guards the primary
 * contexts' retain counts; a primary context being activated or torn down
 * is marked busy, and the lock is dropped for the work itself, so that no
 * lock is held during profiler callbacks.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "driver-internal.h"

/* cuCtxGetApiVersion: contexts have had the 3.2 ABI since CUDA 3.2. */
#define CONTEXT_API_VERSION 3020

static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_context **registry; /* every context ever made */
static size_t registry_count, registry_capacity;
static uint32_t next_context_id = 1;

static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t primary_idle = PTHREAD_COND_INITIALIZER;
static struct sim_context *primaries[SIM_MAX_DEVICES];
static bool primary_busy[SIM_MAX_DEVICES];
static pid_t primary_busy_tid[SIM_MAX_DEVICES];

/* ------------------------------------------------------------ registry */

static CUresult registry_add(struct sim_context *ctx)
{
	CUresult r = CUDA_SUCCESS;

	pthread_mutex_lock(&ctx_lock);
	if (registry_count == registry_capacity) {
		size_t capacity = registry_capacity ? registry_capacity * 2 : 16;
		struct sim_context **grown = realloc(registry, capacity * sizeof(*grown));

		if (!grown) {
			r = CUDA_ERROR_OUT_OF_MEMORY;
			goto end;
		}
		registry = grown;
		registry_capacity = capacity;
	}
	registry[registry_count++] = ctx;
end:
	pthread_mutex_unlock(&ctx_lock);
	return r;
}

/* A context struct this file made, live or not; NULL for anything else. */
static struct sim_context *registry_find(CUcontext handle)
{
	struct sim_context *found = NULL;

	if (!handle)
		return NULL;
	pthread_mutex_lock(&ctx_lock);
	for (size_t i = 0; i < registry_count; i++) {
		if (sim_ctx_handle(registry[i]) == handle) {
			found = registry[i];
			break;
		}
	}
	pthread_mutex_unlock(&ctx_lock);
	return found;
}

static bool context_is_destroyed(const struct sim_context *ctx)
{
	return __atomic_load_n(&ctx->destroyed, __ATOMIC_ACQUIRE);
}

HIDDEN struct sim_context *sim_ctx_from_handle(CUcontext handle)
{
	struct sim_context *ctx = registry_find(handle);

	return ctx && !context_is_destroyed(ctx) ? ctx : NULL;
}

SIM_EXPORT int sim_context_id(CUcontext handle, uint32_t *id)
{
	struct sim_context *ctx = registry_find(handle);

	if (!id)
		return CUDA_ERROR_INVALID_VALUE;
	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	*id = ctx->id;
	return 0;
}

SIM_EXPORT int sim_context_device(CUcontext handle, uint32_t *device)
{
	/* cupti_activity.h: cuptiGetDeviceId(NULL, ...) means the current
	 * context. */
	struct sim_context *ctx = handle ? registry_find(handle) : sim_ctx_current();

	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	*device = (uint32_t)ctx->device;
	return 0;
}

/* ------------------------------------------------------------ thread stack */

struct ctx_stack {
	size_t depth, capacity;
	struct sim_context **items;
};

static __thread struct ctx_stack thread_stack;
static pthread_once_t stack_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t stack_key;

/* A thread's stack goes with the thread; later calls made by other
 * destructors of that thread start from an empty stack. */
static void stack_free(void *items)
{
	if (thread_stack.items == items) {
		thread_stack.items = NULL;
		thread_stack.depth = 0;
		thread_stack.capacity = 0;
	}
	free(items);
}

static void stack_key_create(void)
{
	pthread_key_create(&stack_key, stack_free);
}

static struct sim_context *stack_top(void)
{
	return thread_stack.depth ? thread_stack.items[thread_stack.depth - 1] : NULL;
}

static CUresult stack_push(struct sim_context *ctx)
{
	struct ctx_stack *stack = &thread_stack;

	if (stack->depth == stack->capacity) {
		size_t capacity = stack->capacity ? stack->capacity * 2 : 8;
		struct sim_context **grown = realloc(stack->items, capacity * sizeof(*grown));

		if (!grown)
			return CUDA_ERROR_OUT_OF_MEMORY;
		pthread_once(&stack_key_once, stack_key_create);
		pthread_setspecific(stack_key, grown);
		stack->items = grown;
		stack->capacity = capacity;
	}
	stack->items[stack->depth++] = ctx;
	return CUDA_SUCCESS;
}

static struct sim_context *stack_pop(void)
{
	return thread_stack.depth ? thread_stack.items[--thread_stack.depth] : NULL;
}

HIDDEN struct sim_context *sim_ctx_current(void)
{
	struct sim_context *ctx = stack_top();

	return ctx && !context_is_destroyed(ctx) ? ctx : NULL;
}

HIDDEN CUresult sim_ctx_require(struct sim_context **ctx)
{
	struct sim_context *top = stack_top();

	if (!top)
		return CUDA_ERROR_INVALID_CONTEXT;
	/* cuda.h: CUDA_ERROR_CONTEXT_IS_DESTROYED for a context destroyed
	 * while current, or a primary context that is not initialised. */
	if (context_is_destroyed(top))
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	/*
	 * An illegal address "leaves the process in an inconsistent state and
	 * any further CUDA work will return the same error" (cuda.h,
	 * CUDA_ERROR_ILLEGAL_ADDRESS).
	 */
	if (__atomic_load_n(&top->faulted, __ATOMIC_ACQUIRE))
		return CUDA_ERROR_ILLEGAL_ADDRESS;
	*ctx = top;
	return CUDA_SUCCESS;
}

HIDDEN CUresult sim_ctx_enter(struct sim_context **ctx)
{
	CUresult r = sim_init_status();

	return r != CUDA_SUCCESS ? r : sim_ctx_require(ctx);
}

/* The context a handle names; NULL means the current one (cuCtxGetId,
 * cuCtxGetApiVersion, cuCtxSynchronize_v2, cuCtxGetDevice_v2). */
static CUresult context_resolve(CUcontext handle, struct sim_context **ctx)
{
	struct sim_context *found;

	if (!handle)
		return sim_ctx_require(ctx);
	found = registry_find(handle);
	if (!found)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (context_is_destroyed(found))
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	*ctx = found;
	return CUDA_SUCCESS;
}

/* ------------------------------------------------------------ life cycle */

/* cuCtxCreate: at most one scheduling policy, no unknown bits. */
static bool flags_valid(unsigned int flags)
{
	unsigned int sched = flags & CU_CTX_SCHED_MASK;

	if (flags & ~(unsigned int)CU_CTX_FLAGS_MASK)
		return false;
	return sched == CU_CTX_SCHED_AUTO || sched == CU_CTX_SCHED_SPIN ||
	       sched == CU_CTX_SCHED_YIELD || sched == CU_CTX_SCHED_BLOCKING_SYNC;
}

static void limits_reset(struct sim_context *ctx)
{
	memset(ctx->limits, 0, sizeof(ctx->limits));
	ctx->limits[CU_LIMIT_STACK_SIZE] = 1024;
	ctx->limits[CU_LIMIT_PRINTF_FIFO_SIZE] = 1048576;
	ctx->limits[CU_LIMIT_MALLOC_HEAP_SIZE] = 8388608;
	ctx->limits[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048;
	ctx->limits[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 64;
	ctx->limits[CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED] = 1;
	ctx->heap_launched = false;
	ctx->printf_launched = false;
}

/*
 * Give ctx (device, primary and flags set) a new id, its memory and its
 * legacy stream. On failure nothing is left taken and ctx stays unusable.
 */
static CUresult context_activate(struct sim_context *ctx)
{
	CUresult r;

	ctx->id = __atomic_fetch_add(&next_context_id, 1, __ATOMIC_RELAXED);
	ctx->dying = false;
	ctx->legacy = NULL;
	ctx->streams = NULL;
	ctx->cache_config = CU_FUNC_CACHE_PREFER_NONE;
	ctx->peer_count = 0;
	limits_reset(ctx);
	r = sim_mem_context_reserve(ctx);
	if (r != CUDA_SUCCESS)
		return r;
	r = sim_stream_create_legacy(ctx, &ctx->legacy);
	if (r != CUDA_SUCCESS)
		goto error;
	__atomic_store_n(&ctx->destroyed, false, __ATOMIC_RELEASE);
	return CUDA_SUCCESS;
error:
	sim_mem_context_unreserve(ctx);
	return r;
}

static void context_activity(const struct sim_context *ctx)
{
	CUpti_ActivityContext3 record;

	if (!sim_activity_enabled(CUPTI_ACTIVITY_KIND_CONTEXT))
		return;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
	record.contextId = ctx->id;
	record.deviceId = (uint32_t)ctx->device;
	record.computeApiKind = CUPTI_ACTIVITY_COMPUTE_API_CUDA;
	record.nullStreamId = ctx->legacy ? (uint16_t)sim_stream_get_id(ctx->legacy) : 0;
	record.numMultiprocessors = SIM_MULTIPROCESSOR_COUNT;
	record.cigMode = CUPTI_CONTEXT_CIG_MODE_NONE;
	sim_activity((const CUpti_Activity *)&record, sim_now_ns());
}

/* What a new context shows: records, the ledger, CONTEXT_CREATED. Called
 * with no lock held. */
static void context_announce(struct sim_context *ctx)
{
	sim_device_announce(ctx->device);
	context_activity(ctx);
	sim_ledger("op=ctx_create ctx=%u dev=%d primary=%d", ctx->id, ctx->device,
	           ctx->primary ? 1 : 0);
	sim_resource_callback(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, sim_ctx_handle(ctx), NULL);
}

/* Other contexts forget peer access to a context going away. */
static void peers_forget(struct sim_context *gone)
{
	pthread_mutex_lock(&ctx_lock);
	for (size_t i = 0; i < registry_count; i++) {
		struct sim_context *ctx = registry[i];

		for (size_t p = 0; p < ctx->peer_count;) {
			if (ctx->peers[p] == gone)
				ctx->peers[p] = ctx->peers[--ctx->peer_count];
			else
				p++;
		}
	}
	gone->peer_count = 0;
	pthread_mutex_unlock(&ctx_lock);
}

/*
 * Destroy a live context's contents. CONTEXT_DESTROY_STARTING comes first,
 * while everything is still there; the real driver also lets the work
 * already queued finish. Called with no lock held.
 */
static void context_teardown(struct sim_context *ctx)
{
	sim_resource_callback(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, sim_ctx_handle(ctx),
	                      NULL);
	sim_wait_until(sim_device_tail(ctx->device));
	sim_module_context_destroyed(ctx);
	sim_stream_destroy_all(ctx);
	sim_mem_context_destroyed(ctx);
	sim_mem_context_unreserve(ctx);
	peers_forget(ctx);
	__atomic_store_n(&ctx->destroyed, true, __ATOMIC_RELEASE);
	sim_ledger("op=ctx_destroy ctx=%u dev=%d primary=%d", ctx->id, ctx->device,
	           ctx->primary ? 1 : 0);
}

static CUresult check_create_params(const CUctxCreateParams *params)
{
	if (!params)
		return CUDA_SUCCESS;
	/* cuda.h: setting both is undefined; refuse it. */
	if (params->execAffinityParams && params->cigParams)
		return CUDA_ERROR_INVALID_VALUE;
	/* CIG needs D3D12 or Vulkan interop, which no simulated device has. */
	if (params->cigParams)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (params->numExecAffinityParams < 0 ||
	    (params->numExecAffinityParams > 0 && !params->execAffinityParams))
		return CUDA_ERROR_INVALID_VALUE;
	/* cuda.h: execution affinity works only under MPS, which is off. */
	if (params->numExecAffinityParams > 0)
		return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
	return CUDA_SUCCESS;
}

static CUresult context_create(CUcontext *pctx, const CUctxCreateParams *params, unsigned int flags,
                               CUdevice dev)
{
	struct sim_context *ctx;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!pctx || !flags_valid(flags))
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_device_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	r = check_create_params(params);
	if (r != CUDA_SUCCESS)
		return r;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return CUDA_ERROR_OUT_OF_MEMORY;
	ctx->device = dev;
	ctx->flags = flags;
	ctx->destroyed = true;
	r = context_activate(ctx);
	if (r != CUDA_SUCCESS)
		goto error;
	r = registry_add(ctx);
	if (r != CUDA_SUCCESS)
		goto error_active;
	/* cuda.h: the new context supplants the current one, which a later
	 * cuCtxPopCurrent restores. */
	r = stack_push(ctx);
	if (r != CUDA_SUCCESS) {
		context_teardown(ctx);
		return r;
	}
	*pctx = sim_ctx_handle(ctx);
	context_announce(ctx);
	return CUDA_SUCCESS;
error_active:
	sim_stream_destroy_all(ctx);
	sim_mem_context_unreserve(ctx);
error:
	free(ctx);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
                                           unsigned int flags, CUdevice dev)
{
	cuCtxCreate_v4_params p = { pctx, ctxCreateParams, flags, dev };
	SIM_DRIVER_CALL(cuCtxCreate_v4, p, context_create(pctx, ctxCreateParams, flags, dev));
}

/* The CUDA 3.2 and 11.4 entry points, which programs built against older
 * headers still call. */
SIM_EXPORT CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
SIM_EXPORT CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray,
                                           int numParams, unsigned int flags, CUdevice dev);

SIM_EXPORT CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	cuCtxCreate_v2_params p = { pctx, flags, dev };
	SIM_DRIVER_CALL(cuCtxCreate_v2, p, context_create(pctx, NULL, flags, dev));
}

SIM_EXPORT CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray,
                                           int numParams, unsigned int flags, CUdevice dev)
{
	cuCtxCreate_v3_params p = { pctx, paramsArray, numParams, flags, dev };
	CUctxCreateParams params = { paramsArray, numParams, NULL };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxCreate_v3, &p);
	r = context_create(pctx, &params, flags, dev);
	sim_api_exit(&call, r);
	return r;
}

/* Take a created context for destruction: exactly one caller wins. */
static CUresult context_claim(CUcontext handle, struct sim_context **out)
{
	struct sim_context *ctx = registry_find(handle);
	CUresult r = CUDA_SUCCESS;

	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&ctx_lock);
	/* A primary context goes through cuDevicePrimaryCtxRelease. */
	if (!ctx || ctx->primary || ctx->destroyed || ctx->dying)
		r = CUDA_ERROR_INVALID_CONTEXT;
	else
		ctx->dying = true;
	pthread_mutex_unlock(&ctx_lock);
	*out = ctx;
	return r;
}

static CUresult context_destroy(CUcontext handle)
{
	struct sim_context *ctx;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	r = context_claim(handle, &ctx);
	if (r != CUDA_SUCCESS)
		return r;
	context_teardown(ctx);
	/* cuda.h: popped from the calling thread's stack when current there;
	 * other threads keep it and get CUDA_ERROR_CONTEXT_IS_DESTROYED. */
	if (stack_top() == ctx)
		stack_pop();
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
	cuCtxDestroy_v2_params p = { ctx };
	SIM_DRIVER_CALL(cuCtxDestroy_v2, p, context_destroy(ctx));
}

/* ------------------------------------------------------------ primary */

/* Wait until no other thread is activating or tearing down the device's
 * primary context, then mark it busy for the caller. primary_lock held. */
static CUresult primary_acquire_locked(int dev)
{
	while (primary_busy[dev]) {
		/* A profiler callback of this very operation calling back. */
		if (primary_busy_tid[dev] == gettid())
			return CUDA_ERROR_NOT_PERMITTED;
		pthread_cond_wait(&primary_idle, &primary_lock);
	}
	primary_busy[dev] = true;
	primary_busy_tid[dev] = gettid();
	return CUDA_SUCCESS;
}

static void primary_release_locked(int dev)
{
	primary_busy[dev] = false;
	primary_busy_tid[dev] = 0;
	pthread_cond_broadcast(&primary_idle);
}

/* The device's primary context struct, made (inactive) on first use. */
static CUresult primary_get_locked(int dev, struct sim_context **out)
{
	struct sim_context *ctx = primaries[dev];
	CUresult r;

	if (!ctx) {
		ctx = calloc(1, sizeof(*ctx));
		if (!ctx)
			return CUDA_ERROR_OUT_OF_MEMORY;
		ctx->device = dev;
		ctx->primary = true;
		ctx->destroyed = true;
		r = registry_add(ctx);
		if (r != CUDA_SUCCESS) {
			free(ctx);
			return r;
		}
		primaries[dev] = ctx;
	}
	*out = ctx;
	return CUDA_SUCCESS;
}

static CUresult primary_retain(CUcontext *pctx, CUdevice dev)
{
	struct sim_context *ctx;
	bool activated = false;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_device_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&primary_lock);
	r = primary_get_locked(dev, &ctx);
	if (r == CUDA_SUCCESS)
		r = primary_acquire_locked(dev);
	if (r != CUDA_SUCCESS)
		goto end;
	if (context_is_destroyed(ctx)) {
		pthread_mutex_unlock(&primary_lock);
		r = context_activate(ctx);
		pthread_mutex_lock(&primary_lock);
		activated = r == CUDA_SUCCESS;
	}
	if (r == CUDA_SUCCESS) {
		ctx->primary_retains++;
		*pctx = sim_ctx_handle(ctx);
	}
	primary_release_locked(dev);
end:
	pthread_mutex_unlock(&primary_lock);
	if (activated)
		context_announce(ctx);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	cuDevicePrimaryCtxRetain_params p = { pctx, dev };
	SIM_DRIVER_CALL(cuDevicePrimaryCtxRetain, p, primary_retain(pctx, dev));
}

/*
 * Tear down an active primary context: by release when its count reaches
 * zero, or by reset (which keeps the count: cuda.h, "Resetting the primary
 * context does not release it"). Unlike cuCtxDestroy, never pops it from
 * any thread's stack.
 */
static CUresult primary_deactivate(CUdevice dev, bool release)
{
	struct sim_context *ctx;
	bool teardown = false;
	CUresult r = sim_device_check(dev);

	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&primary_lock);
	ctx = primaries[dev];
	if (!ctx) {
		/* cuda.h: releasing a primary context never retained is an error. */
		r = release ? CUDA_ERROR_INVALID_CONTEXT : CUDA_SUCCESS;
		goto end;
	}
	r = primary_acquire_locked(dev);
	if (r != CUDA_SUCCESS)
		goto end;
	/* Counted only now: other releases may have run while this waited. */
	if (release && ctx->primary_retains == 0) {
		r = CUDA_ERROR_INVALID_CONTEXT;
		goto idle;
	}
	if (release)
		ctx->primary_retains--;
	teardown = !context_is_destroyed(ctx) && (!release || ctx->primary_retains == 0);
	if (teardown) {
		pthread_mutex_unlock(&primary_lock);
		context_teardown(ctx);
		pthread_mutex_lock(&primary_lock);
	}
idle:
	primary_release_locked(dev);
end:
	pthread_mutex_unlock(&primary_lock);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	cuDevicePrimaryCtxRelease_v2_params p = { dev };
	SIM_DRIVER_CALL(cuDevicePrimaryCtxRelease_v2, p, primary_deactivate(dev, true));
}

SIM_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	cuDevicePrimaryCtxReset_v2_params p = { dev };
	SIM_DRIVER_CALL(cuDevicePrimaryCtxReset_v2, p, primary_deactivate(dev, false));
}

static CUresult primary_get_state(CUdevice dev, unsigned int *flags, int *active)
{
	struct sim_context *ctx;
	CUresult r = sim_device_check(dev);

	if (r != CUDA_SUCCESS)
		return r;
	if (!flags || !active)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&primary_lock);
	ctx = primaries[dev];
	*flags = ctx ? ctx->flags : 0;
	*active = ctx && !context_is_destroyed(ctx);
	pthread_mutex_unlock(&primary_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags,
                                                       int *active)
{
	cuDevicePrimaryCtxGetState_params p = { dev, flags, active };
	SIM_DRIVER_CALL(cuDevicePrimaryCtxGetState, p, primary_get_state(dev, flags, active));
}

/* Since CUDA 11.0 (_v2) the flags may change while the context is active. */
static CUresult primary_set_flags(CUdevice dev, unsigned int flags)
{
	struct sim_context *ctx;
	CUresult r = sim_device_check(dev);

	if (r != CUDA_SUCCESS)
		return r;
	if (!flags_valid(flags))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&primary_lock);
	r = primary_get_locked(dev, &ctx);
	if (r == CUDA_SUCCESS)
		ctx->flags = flags;
	pthread_mutex_unlock(&primary_lock);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
	cuDevicePrimaryCtxSetFlags_v2_params p = { dev, flags };
	SIM_DRIVER_CALL(cuDevicePrimaryCtxSetFlags_v2, p, primary_set_flags(dev, flags));
}

/* ------------------------------------------------------------ current */

static CUresult push_current(CUcontext handle)
{
	struct sim_context *ctx;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	ctx = sim_ctx_from_handle(handle);
	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	return stack_push(ctx);
}

SIM_EXPORT CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx)
{
	cuCtxPushCurrent_v2_params p = { ctx };
	SIM_DRIVER_CALL(cuCtxPushCurrent_v2, p, push_current(ctx));
}

static CUresult pop_current(CUcontext *pctx)
{
	struct sim_context *ctx;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	ctx = stack_pop();
	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (pctx)
		*pctx = sim_ctx_handle(ctx);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx)
{
	cuCtxPopCurrent_v2_params p = { pctx };
	SIM_DRIVER_CALL(cuCtxPopCurrent_v2, p, pop_current(pctx));
}

/* cuda.h: replace the top of the stack (push on an empty one); NULL pops,
 * or does nothing on an empty stack. */
static CUresult set_current(CUcontext handle)
{
	struct sim_context *ctx;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!handle) {
		stack_pop();
		return CUDA_SUCCESS;
	}
	ctx = sim_ctx_from_handle(handle);
	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (thread_stack.depth == 0)
		return stack_push(ctx);
	thread_stack.items[thread_stack.depth - 1] = ctx;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
	cuCtxSetCurrent_params p = { ctx };
	SIM_DRIVER_CALL(cuCtxSetCurrent, p, set_current(ctx));
}

/* The top of the stack even when destroyed: it is still bound. */
SIM_EXPORT CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
	cuCtxGetCurrent_params p = { pctx };
	struct sim_api_call call;
	struct sim_context *top;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxGetCurrent, &p);
	r = sim_init_status();
	if (r == CUDA_SUCCESS && !pctx)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS) {
		top = stack_top();
		*pctx = top ? sim_ctx_handle(top) : NULL;
	}
	sim_api_exit(&call, r);
	return r;
}

/* ------------------------------------------------------------ queries */

/* Initialised driver, a usable current context, a non-NULL out pointer. */
static CUresult current_with(const void *out, struct sim_context **ctx)
{
	CUresult r = sim_ctx_enter(ctx);

	if (r != CUDA_SUCCESS)
		return r;
	return out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Initialised driver and the context a handle names (NULL: the current
 * one). */
static CUresult resolved(CUcontext handle, struct sim_context **ctx)
{
	CUresult r = sim_init_status();

	return r != CUDA_SUCCESS ? r : context_resolve(handle, ctx);
}

/* The same, and a non-NULL out pointer. */
static CUresult resolved_with(CUcontext handle, const void *out, struct sim_context **ctx)
{
	CUresult r = resolved(handle, ctx);

	if (r != CUDA_SUCCESS)
		return r;
	return out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
	cuCtxGetDevice_params p = { device };
	struct sim_api_call call;
	struct sim_context *ctx;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxGetDevice, &p);
	r = current_with(device, &ctx);
	if (r == CUDA_SUCCESS)
		*device = ctx->device;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
	cuCtxGetDevice_v2_params p = { device, ctx };
	struct sim_api_call call;
	struct sim_context *context;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxGetDevice_v2, &p);
	r = resolved_with(ctx, device, &context);
	if (r == CUDA_SUCCESS)
		*device = context->device;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags)
{
	cuCtxGetFlags_params p = { flags };
	struct sim_api_call call;
	struct sim_context *ctx;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxGetFlags, &p);
	r = current_with(flags, &ctx);
	if (r == CUDA_SUCCESS)
		*flags = ctx->flags;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxSetFlags(unsigned int flags)
{
	cuCtxSetFlags_params p = { flags };
	struct sim_api_call call;
	struct sim_context *ctx;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxSetFlags, &p);
	r = sim_ctx_enter(&ctx);
	if (r == CUDA_SUCCESS && !flags_valid(flags))
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		ctx->flags = flags;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
	cuCtxGetId_params p = { ctx, ctxId };
	struct sim_api_call call;
	struct sim_context *context;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxGetId, &p);
	r = resolved_with(ctx, ctxId, &context);
	if (r == CUDA_SUCCESS)
		*ctxId = context->id;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
	cuCtxGetApiVersion_params p = { ctx, version };
	struct sim_api_call call;
	struct sim_context *context;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxGetApiVersion, &p);
	r = resolved_with(ctx, version, &context);
	if (r == CUDA_SUCCESS)
		*version = CONTEXT_API_VERSION;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
	cuCtxGetStreamPriorityRange_params p = { leastPriority, greatestPriority };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxGetStreamPriorityRange, &p);
	r = sim_init_status();
	/* cuda.h: either pointer may be NULL. */
	if (r == CUDA_SUCCESS && leastPriority)
		*leastPriority = SIM_STREAM_PRIORITY_LEAST;
	if (r == CUDA_SUCCESS && greatestPriority)
		*greatestPriority = SIM_STREAM_PRIORITY_GREATEST;
	sim_api_exit(&call, r);
	return r;
}

/* ------------------------------------------------------------ limits */

static CUresult limit_get(struct sim_context *ctx, CUlimit limit, size_t *value)
{
	if ((unsigned int)limit >= CU_LIMIT_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	/* cuda.h: the sync depth applies below compute capability 9.0 only. */
	if (limit == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH)
		return CUDA_ERROR_UNSUPPORTED_LIMIT;
	*value = ctx->limits[limit];
	return CUDA_SUCCESS;
}

static CUresult limit_set(struct sim_context *ctx, CUlimit limit, size_t value)
{
	switch (limit) {
	case CU_LIMIT_PRINTF_FIFO_SIZE:
		/* cuda.h: only before a kernel that uses printf() is launched. */
		if (__atomic_load_n(&ctx->printf_launched, __ATOMIC_RELAXED))
			return CUDA_ERROR_INVALID_VALUE;
		break;
	case CU_LIMIT_MALLOC_HEAP_SIZE:
		/* cuda.h: only before a kernel that uses malloc() or free() is
		 * launched. */
		if (__atomic_load_n(&ctx->heap_launched, __ATOMIC_RELAXED))
			return CUDA_ERROR_INVALID_VALUE;
		break;
	case CU_LIMIT_STACK_SIZE:
	case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
	case CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED:
		break;
	case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
		/* A hint between 0 and 128 bytes (cuda.h); clamped. */
		value = value > 128 ? 128 : value;
		break;
	case CU_LIMIT_PERSISTING_L2_CACHE_SIZE: {
		size_t most = (size_t)sim_device_attribute(
		    ctx->device, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);

		value = value > most ? most : value;
		break;
	}
	case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH:
		return CUDA_ERROR_UNSUPPORTED_LIMIT;
	default:
		/* SHMEM_SIZE and CIG_ENABLED can only be queried (cuda.h). */
		return CUDA_ERROR_INVALID_VALUE;
	}
	ctx->limits[limit] = value;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
	cuCtxGetLimit_params p = { pvalue, limit };
	struct sim_api_call call;
	struct sim_context *ctx;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxGetLimit, &p);
	r = current_with(pvalue, &ctx);
	if (r == CUDA_SUCCESS)
		r = limit_get(ctx, limit, pvalue);
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value)
{
	cuCtxSetLimit_params p = { limit, value };
	struct sim_api_call call;
	struct sim_context *ctx;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxSetLimit, &p);
	r = sim_ctx_enter(&ctx);
	if (r == CUDA_SUCCESS)
		r = limit_set(ctx, limit, value);
	sim_api_exit(&call, r);
	return r;
}

static bool cache_config_valid(CUfunc_cache config)
{
	return config == CU_FUNC_CACHE_PREFER_NONE || config == CU_FUNC_CACHE_PREFER_SHARED ||
	       config == CU_FUNC_CACHE_PREFER_L1 || config == CU_FUNC_CACHE_PREFER_EQUAL;
}

SIM_EXPORT CUresult CUDAAPI cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
	cuCtxGetCacheConfig_params p = { pconfig };
	struct sim_api_call call;
	struct sim_context *ctx;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxGetCacheConfig, &p);
	r = current_with(pconfig, &ctx);
	if (r == CUDA_SUCCESS)
		*pconfig = ctx->cache_config;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxSetCacheConfig(CUfunc_cache config)
{
	cuCtxSetCacheConfig_params p = { config };
	struct sim_api_call call;
	struct sim_context *ctx;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxSetCacheConfig, &p);
	r = sim_ctx_enter(&ctx);
	if (r == CUDA_SUCCESS && !cache_config_valid(config))
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		ctx->cache_config = config;
	sim_api_exit(&call, r);
	return r;
}

/*
 * Shared memory banks are four bytes wide and fixed on compute capability
 * 9.0: the setter "will do nothing on devices with fixed shared memory
 * bank size" after checking its argument, and the getter returns the fixed
 * size (cuda.h, cuCtxSetSharedMemConfig / cuCtxGetSharedMemConfig).
 */
static bool shared_config_valid(CUsharedconfig config)
{
	return config == CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE ||
	       config == CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE ||
	       config == CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE;
}

SIM_EXPORT CUresult CUDAAPI cuCtxGetSharedMemConfig(CUsharedconfig *pConfig)
{
	cuCtxGetSharedMemConfig_params p = { pConfig };
	struct sim_api_call call;
	struct sim_context *ctx;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxGetSharedMemConfig, &p);
	r = current_with(pConfig, &ctx);
	if (r == CUDA_SUCCESS)
		*pConfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxSetSharedMemConfig(CUsharedconfig config)
{
	cuCtxSetSharedMemConfig_params p = { config };
	struct sim_api_call call;
	struct sim_context *ctx;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxSetSharedMemConfig, &p);
	r = sim_ctx_enter(&ctx);
	if (r == CUDA_SUCCESS && !shared_config_valid(config))
		r = CUDA_ERROR_INVALID_VALUE;
	sim_api_exit(&call, r);
	return r;
}

/* ------------------------------------------------------------ synchronize */

static void sync_activity(const struct sim_context *ctx, uint64_t start, uint64_t end)
{
	CUpti_ActivitySynchronization2 record;

	if (!sim_activity_enabled(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION))
		return;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	record.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
	record.start = start;
	record.end = end;
	record.correlationId = sim_current_correlation_id();
	record.contextId = ctx->id;
	/* cupti_activity.h: neither applies to cuCtxSynchronize. */
	record.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	record.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	record.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	record.returnValue = CUDA_SUCCESS;
	sim_activity((const CUpti_Activity *)&record, end);
}

/* Block until all work queued on the context's device has ended. */
static void context_synchronize(struct sim_context *ctx)
{
	uint64_t start = sim_now_ns();
	uint64_t gpu_end = sim_device_tail(ctx->device);

	sim_wait_until(gpu_end);
	sim_pool_on_sync(ctx->device);
	sim_ledger("op=sync what=context stream=- gpu_end=%llu", (unsigned long long)gpu_end);
	sim_sync_callback(CUPTI_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED, sim_ctx_handle(ctx), NULL);
	sync_activity(ctx, start, sim_now_ns());
}

SIM_EXPORT CUresult CUDAAPI cuCtxSynchronize(void)
{
	struct sim_api_call call;
	struct sim_context *ctx;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxSynchronize, NULL);
	r = sim_ctx_enter(&ctx);
	if (r == CUDA_SUCCESS)
		context_synchronize(ctx);
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx)
{
	cuCtxSynchronize_v2_params p = { ctx };
	struct sim_api_call call;
	struct sim_context *context;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuCtxSynchronize_v2, &p);
	r = resolved(ctx, &context);
	if (r == CUDA_SUCCESS)
		context_synchronize(context);
	sim_api_exit(&call, r);
	return r;
}

/* ------------------------------------------------------------ peers */

HIDDEN bool sim_ctx_peer_enabled(struct sim_context *ctx, int peer_device)
{
	bool enabled = false;

	pthread_mutex_lock(&ctx_lock);
	for (size_t i = 0; i < ctx->peer_count && !enabled; i++)
		enabled =
		    ctx->peers[i]->device == peer_device && !context_is_destroyed(ctx->peers[i]);
	pthread_mutex_unlock(&ctx_lock);
	return enabled;
}

static size_t peer_index_locked(const struct sim_context *ctx, const struct sim_context *peer)
{
	size_t i;

	for (i = 0; i < ctx->peer_count; i++)
		if (ctx->peers[i] == peer)
			break;
	return i;
}

static CUresult peer_enable(CUcontext handle, unsigned int flags)
{
	struct sim_context *ctx, *peer;
	CUresult r = sim_ctx_enter(&ctx);

	if (r != CUDA_SUCCESS)
		return r;
	if (flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	peer = sim_ctx_from_handle(handle);
	/* cuda.h: no peer, an invalid one, or the current context itself. */
	if (!peer || peer == ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (peer->device == ctx->device)
		return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
	pthread_mutex_lock(&ctx_lock);
	if (peer_index_locked(ctx, peer) < ctx->peer_count)
		r = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
	else if (ctx->peer_count == sizeof(ctx->peers) / sizeof(ctx->peers[0]))
		r = CUDA_ERROR_TOO_MANY_PEERS;
	else
		ctx->peers[ctx->peer_count++] = peer;
	pthread_mutex_unlock(&ctx_lock);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
	cuCtxEnablePeerAccess_params p = { peerContext, Flags };
	SIM_DRIVER_CALL(cuCtxEnablePeerAccess, p, peer_enable(peerContext, Flags));
}

static CUresult peer_disable(CUcontext handle)
{
	struct sim_context *ctx, *peer;
	CUresult r = sim_ctx_enter(&ctx);
	size_t index;

	if (r != CUDA_SUCCESS)
		return r;
	peer = sim_ctx_from_handle(handle);
	if (!peer)
		return CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&ctx_lock);
	index = peer_index_locked(ctx, peer);
	if (index == ctx->peer_count)
		r = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
	else
		ctx->peers[index] = ctx->peers[--ctx->peer_count];
	pthread_mutex_unlock(&ctx_lock);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext)
{
	cuCtxDisablePeerAccess_params p = { peerContext };
	SIM_DRIVER_CALL(cuCtxDisablePeerAccess, p, peer_disable(peerContext));
}
