/* SPDX-License-Identifier: MIT */
/*
 * module-load.c - module_load_failed: a module the driver refused to load
 * for want of code the device can run, with the architectures its image
 * carries. CUPTI reports a module only once loaded (module_load,
 * resources.c); a failed cuModuleLoadData, cuModuleLoadDataEx,
 * cuModuleLoadFatBinary or cuLibraryLoadData is seen at its EXIT, with
 * the image still the program's to read.
 *
 * Only the errors NVIDIA's compatibility rules explain make the event:
 * CUDA_ERROR_NO_BINARY_FOR_GPU (209: no cubin for the device and no PTX
 * at or below it), CUDA_ERROR_INVALID_PTX (218), CUDA_ERROR_JIT_COMPILER_
 * NOT_FOUND (221) and CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222: PTX newer
 * than the driver), per cuda.h's CUresult. Runtime calls that fail so
 * are api_call events; the runtime loads its modules itself, and their
 * code is the program's (library_load).
 */
#include <cupti.h>

#include "api-call.h"
#include "cudatrace-tp.h"
#include "device-code.h"
#include "emit.h"
#include "text.h"

#define CODES_TEXT 512

static bool compat_error(int32_t result)
{
	return result == CUDA_ERROR_NO_BINARY_FOR_GPU || result == CUDA_ERROR_INVALID_PTX ||
	       result == CUDA_ERROR_JIT_COMPILER_NOT_FOUND ||
	       result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
}

static void load_failed(const struct api_call *call, const void *image)
{
	char codes[CODES_TEXT];

	if (!call_failed(call) || !compat_error(call->result))
		return;
	device_code_of_load_image(image, codes, sizeof(codes));
	text_bound_list(codes);
	EMIT(module_load_failed, &(struct ct_ev_module_load_failed){
	                             .context = call_context(call),
	                             .device = call_device(call),
	                             .result = call->result,
	                             .device_code = codes,
	                             .device_code_len = text_length(codes),
	                             .ptx_isa = (uint16_t)device_code_ptx_isa(image),
	                         });
}

static void load_data_exit(struct api_call *call)
{
	load_failed(call, ((const cuModuleLoadData_params *)call_params(call))->image);
}

static void load_data_ex_exit(struct api_call *call)
{
	load_failed(call, ((const cuModuleLoadDataEx_params *)call_params(call))->image);
}

static void load_fat_binary_exit(struct api_call *call)
{
	load_failed(call, ((const cuModuleLoadFatBinary_params *)call_params(call))->fatCubin);
}

static void library_load_data_exit(struct api_call *call)
{
	load_failed(call, ((const cuLibraryLoadData_params *)call_params(call))->code);
}

static const struct api_binding module_load_bindings[] = {
	BIND_DRIVER(cuModuleLoadData, 0, NULL, load_data_exit),
	BIND_DRIVER(cuModuleLoadDataEx, 0, NULL, load_data_ex_exit),
	BIND_DRIVER(cuModuleLoadFatBinary, 0, NULL, load_fat_binary_exit),
	BIND_DRIVER(cuLibraryLoadData, 0, NULL, library_load_data_exit),
	BIND_END,
};

static bool module_loads_wanted(void)
{
	return api_events_wanted() || lttng_ust_tracepoint_enabled(cudatrace, module_load_failed);
}

const struct api_family module_load_family = {
	.bindings = module_load_bindings,
	.wanted = module_loads_wanted,
};
