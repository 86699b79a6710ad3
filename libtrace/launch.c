/* SPDX-License-Identifier: MIT */
/*
 * launch.c - kernel launches: launch events.
 *
 * A `<<<>>>` launch compiled for CUDA 12 calls cudaLaunchKernel, with its
 * configuration. One compiled for CUDA 13 calls __cudaLaunchKernel, for which
 * CUPTI gives the kernel's name but no parameters. When the driver reports
 * the cuLaunchKernel that it makes, its configuration is taken from there
 * (nested callback); otherwise the launch is a launch_unconfigured, and
 * its kernel's record (same correlation id) has the configuration: a
 * gpu_kernel_shaped naming a kernel_shape (kernel-shapes.h), or a whole
 * gpu_kernel. A launch its thread recorded whole a moment before is
 * recorded by a repeat (repeats.h).
 */
#include <stddef.h>
#include <cupti.h>

#include "api-call.h"
#include "call-stack.h"
#include "capture.h"
#include "cupti-compat.h"
#include "cudatrace-tp.h"
#include "names.h"
#include "recorded-ops.h"

static void config_set(struct launch_config *config, const unsigned grid[3],
                       const unsigned block[3], uint64_t shared_mem, CUstream stream)
{
	for (int i = 0; i < 3; i++) {
		config->grid[i] = grid[i];
		config->block[i] = block[i];
	}
	config->shared_mem = shared_mem > UINT32_MAX ? UINT32_MAX : (uint32_t)shared_mem;
	config->stream = stream;
	config->known = true;
}

static void config_from_dim3(struct launch_config *config, dim3 grid, dim3 block,
                             uint64_t shared_mem, cudaStream_t stream)
{
	const unsigned g[3] = { grid.x, grid.y, grid.z };
	const unsigned b[3] = { block.x, block.y, block.z };

	config_set(config, g, b, shared_mem, (CUstream)stream);
}

static void config_from_cu_launch(struct launch_config *config, const cuLaunchKernel_params *p)
{
	const unsigned g[3] = { p->gridDimX, p->gridDimY, p->gridDimZ };
	const unsigned b[3] = { p->blockDimX, p->blockDimY, p->blockDimZ };

	config_set(config, g, b, p->sharedMemBytes, p->hStream);
}

static void config_from_cu_launch_ex(struct launch_config *config, const CUlaunchConfig *c)
{
	const unsigned g[3] = { c->gridDimX, c->gridDimY, c->gridDimZ };
	const unsigned b[3] = { c->blockDimX, c->blockDimY, c->blockDimZ };

	config_set(config, g, b, c->sharedMemBytes, c->hStream);
}

/* A launch on a capturing stream only adds a kernel node to a graph, whose
 * launches run it. Without its stream (a <<<>>> launch whose driver launch
 * is not reported), it is taken as captured while its thread has a
 * capture going (doc/events.md, "Stream capture and graphs"). */
static bool launch_captured(const struct api_call *call, const struct launch_config *config)
{
	if (config->known)
		return capture_stream_is_capturing(call, config->stream);
	return capture_thread_is_capturing();
}

/* What a launch event refers to, written before it: its kernel's and its
 * call's names, its stack. */
static void before_launch_event(struct api_call *call, const char *symbol, uint64_t kernel_id,
                                uint32_t correlation_id)
{
	names_note_kernel(call->names, kernel_id, symbol);
	call_note_name(call);
	call_stack_note_operation(call, correlation_id);
}

/* What a launch event says that its kernel's record need not repeat: WHAT,
 * unless it has no kernel_id to join the record by (written whole then). */
static enum recorded_op launch_note(uint64_t kernel_id, enum recorded_op what)
{
	return kernel_id ? what : RECORDED_NONE;
}

/* A launch whose configuration is unknown: its kernel's record has it. */
static void emit_unconfigured(struct api_call *call, uint64_t kernel_id)
{
	struct ct_ev_launch_unconfigured e = {
		.kernel_id = kernel_id,
		.device = call_device(call),
		.api = call_record(call),
	};

	REPEAT_OR_WRITE(call, launch_unconfigured, &e,
	                launch_note(e.kernel_id, RECORDED_UNCONFIGURED));
}

static void emit_launch(struct api_call *call, const struct launch_config *config)
{
	const char *symbol = call->symbol ? call->symbol : call->nested_launch.symbol;
	uint64_t kernel_id;
	struct ct_ev_launch e;

	if (call_failed(call) ||
	    !(config->known ? lttng_ust_tracepoint_enabled(cudatrace, launch)
	                    : lttng_ust_tracepoint_enabled(cudatrace, launch_unconfigured)) ||
	    launch_captured(call, config))
		return;
	kernel_id = call_kernel_id(call, symbol);
	before_launch_event(call, symbol, kernel_id, call->ref.correlation_id);
	if (!config->known) {
		emit_unconfigured(call, kernel_id);
		return;
	}
	e = (struct ct_ev_launch){
		.kernel_id = kernel_id,
		.grid_x = config->grid[0],
		.grid_y = u16_sat(config->grid[1]),
		.grid_z = u16_sat(config->grid[2]),
		.block_x = u16_sat(config->block[0]),
		.block_y = u16_sat(config->block[1]),
		.block_z = u16_sat(config->block[2]),
		.shared_mem = config->shared_mem,
		.config_known = 1,
		.stream = call_stream(call, config->stream),
		.device = call_device(call),
		.api = call_record(call),
	};
	REPEAT_OR_WRITE(call, launch, &e, launch_note(e.kernel_id, RECORDED_WHOLE));
}

#if CT_CUPTI_HAS_REGISTERED_LAUNCH
/* __cudaLaunchKernel: no parameters; a nested driver launch may tell. */
static void cuda_launch_registered_exit(struct api_call *call)
{
	emit_launch(call, &call->nested_launch);
}
#endif

/* cudaLaunchKernel, cudaLaunchCooperativeKernel and their _ptsz variants
 * share this layout. */
#define SAME_FIELD(a, b, field) (offsetof(a, field) == offsetof(b, field))
_Static_assert(SAME_FIELD(cudaLaunchKernel_v7000_params, cudaLaunchCooperativeKernel_v9000_params,
                          gridDim) &&
                   SAME_FIELD(cudaLaunchKernel_v7000_params,
                              cudaLaunchCooperativeKernel_v9000_params, blockDim) &&
                   SAME_FIELD(cudaLaunchKernel_v7000_params,
                              cudaLaunchCooperativeKernel_v9000_params, sharedMem) &&
                   SAME_FIELD(cudaLaunchKernel_v7000_params,
                              cudaLaunchCooperativeKernel_v9000_params, stream),
               "cudaLaunchCooperativeKernel's parameters are laid out as cudaLaunchKernel's");
static void cuda_launch_kernel_exit(struct api_call *call)
{
	const cudaLaunchKernel_v7000_params *p = call_params(call);
	struct launch_config config = { 0 };

	config_from_dim3(&config, p->gridDim, p->blockDim, p->sharedMem, p->stream);
	emit_launch(call, &config);
}

static void cuda_launch_kernel_ex_exit(struct api_call *call)
{
	const cudaLaunchKernelExC_v11060_params *p = call_params(call);
	struct launch_config config = { 0 };

	if (p->config)
		config_from_dim3(&config, p->config->gridDim, p->config->blockDim,
		                 p->config->dynamicSmemBytes, p->config->stream);
	emit_launch(call, &config);
}

/* Nested inside a runtime launch, a driver launch only adds detail. */
static void cu_launch_kernel_enter(struct api_call *call, const CUpti_CallbackData *data,
                                   bool nested)
{
	if (!nested)
		return;
	config_from_cu_launch(&call->nested_launch, data->functionParams);
	call->nested_launch.symbol = data->symbolName;
}

static void cu_launch_kernel_ex_enter(struct api_call *call, const CUpti_CallbackData *data,
                                      bool nested)
{
	const cuLaunchKernelEx_params *p = data->functionParams;

	if (!nested || !p->config)
		return;
	config_from_cu_launch_ex(&call->nested_launch, p->config);
	call->nested_launch.symbol = data->symbolName;
}

/* cuLaunchKernel and cuLaunchCooperativeKernel (and _ptsz) share the
 * leading fields this reads. */
_Static_assert(SAME_FIELD(cuLaunchKernel_params, cuLaunchCooperativeKernel_params, gridDimZ) &&
                   SAME_FIELD(cuLaunchKernel_params, cuLaunchCooperativeKernel_params, blockDimZ) &&
                   SAME_FIELD(cuLaunchKernel_params, cuLaunchCooperativeKernel_params,
                              sharedMemBytes) &&
                   SAME_FIELD(cuLaunchKernel_params, cuLaunchCooperativeKernel_params, hStream),
               "cuLaunchCooperativeKernel's parameters are laid out as cuLaunchKernel's");
static void cu_launch_kernel_exit(struct api_call *call)
{
	struct launch_config config = { 0 };

	config_from_cu_launch(&config, call_params(call));
	emit_launch(call, &config);
}

static void cu_launch_kernel_ex_exit(struct api_call *call)
{
	const cuLaunchKernelEx_params *p = call_params(call);
	struct launch_config config = { 0 };

	if (p->config)
		config_from_cu_launch_ex(&config, p->config);
	emit_launch(call, &config);
}

static const struct api_binding launch_bindings[] = {
#if CT_CUPTI_HAS_REGISTERED_LAUNCH
	BIND_RUNTIME_PT(__cudaLaunchKernel, v13000, ptsz_v13000, 0, NULL,
	                cuda_launch_registered_exit),
#endif
	BIND_RUNTIME_PT(cudaLaunchKernel, v7000, ptsz_v7000, 0, NULL, cuda_launch_kernel_exit),
	BIND_RUNTIME_PT(cudaLaunchCooperativeKernel, v9000, ptsz_v9000, 0, NULL,
	                cuda_launch_kernel_exit),
	BIND_RUNTIME_PT(cudaLaunchKernelExC, v11060, ptsz_v11060, 0, NULL,
	                cuda_launch_kernel_ex_exit),
	BIND_DRIVER_PT(cuLaunchKernel, ptsz, 0, cu_launch_kernel_enter, cu_launch_kernel_exit),
	BIND_DRIVER_PT(cuLaunchCooperativeKernel, ptsz, 0, cu_launch_kernel_enter,
	               cu_launch_kernel_exit),
	BIND_DRIVER_PT(cuLaunchKernelEx, ptsz, 0, cu_launch_kernel_ex_enter,
	               cu_launch_kernel_ex_exit),
	BIND_END,
};

static bool launches_wanted(void)
{
	return api_events_wanted() || lttng_ust_tracepoint_enabled(cudatrace, launch);
}

const struct api_family launch_family = {
	.bindings = launch_bindings,
	.wanted = launches_wanted,
	.repeats = true,
};
