/* SPDX-License-Identifier: MIT */
/*
 * python-probe.c - what the Python probe says of a Python process and its
 * framework: cudatrace_python_* emit framework_load, framework_memory,
 * framework_oom, framework_site, python_exception and python_exit
 * (doc/events.md, "The Python probe").
 *
 * The probe is a sitecustomize module `cudatrace record` puts on the
 * PYTHONPATH of the traced tree (cli/python-probe.py); it calls these
 * functions through ctypes, opening CUDA_INJECTION64_PATH as the cells of
 * a notebook do (cells.c), so perhaps before CUDA is initialised. Like
 * those, they only need the application context a session filters on;
 * they never block and never fail, and the values they are given are
 * recorded as given: the probe reads them from the framework.
 */
#include <stdint.h>

#include "app-context.h"
#include "callbacks.h"
#include "emit.h"
#include "nvml.h"
#include "text.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT void cudatrace_python_framework_load(uint32_t framework, const char *version);
EXPORT void cudatrace_python_framework_memory(uint32_t framework, uint32_t device, uint32_t at,
                                              uint64_t in_use, uint64_t reserved,
                                              uint64_t peak_in_use, uint64_t peak_reserved,
                                              uint64_t limit);
EXPORT void cudatrace_python_framework_oom(uint32_t framework, uint32_t device, uint64_t requested,
                                           uint64_t limit, uint64_t device_free);
EXPORT void cudatrace_python_framework_site(uint32_t framework, uint32_t device, uint32_t at,
                                            uint64_t bytes, uint64_t count, const char *file,
                                            uint32_t line, const char *function);
EXPORT void cudatrace_python_exception(const char *type, const char *message, const char *file,
                                       uint32_t line, const char *function, const char *raised_file,
                                       uint32_t raised_line);
EXPORT void cudatrace_python_exit(uint32_t threads);

/* The probe's enumerations arrive as ints: one the contract lacks is "unknown". */
static uint8_t framework_of(uint32_t framework)
{
	return framework <= CT_FRAMEWORK_TENSORFLOW ? (uint8_t)framework : CT_FRAMEWORK_UNKNOWN;
}

static uint8_t moment_of(uint32_t at)
{
	return at >= CT_FRAMEWORK_SAMPLE && at <= CT_FRAMEWORK_PEAK ? (uint8_t)at
	                                                            : CT_FRAMEWORK_SAMPLE;
}

static void ensure_context(void)
{
	/* the calls before it are in the trace before it */
	callbacks_flush_thread();
	app_context_ensure("the Python probe's events");
}

void cudatrace_python_framework_load(uint32_t framework, const char *version)
{
	ensure_context();
	version = text_or_empty(version);
	EMIT(framework_load, &(struct ct_ev_framework_load){
	                         .framework = framework_of(framework),
	                         .version = version,
	                         .version_len = text_length(version),
	                     });
}

void cudatrace_python_framework_memory(uint32_t framework, uint32_t device, uint32_t at,
                                       uint64_t in_use, uint64_t reserved, uint64_t peak_in_use,
                                       uint64_t peak_reserved, uint64_t limit)
{
	ensure_context();
	EMIT(framework_memory, &(struct ct_ev_framework_memory){
	                           .framework = framework_of(framework),
	                           .device = device,
	                           .at = moment_of(at),
	                           .in_use = in_use,
	                           .reserved = reserved,
	                           .peak_in_use = peak_in_use,
	                           .peak_reserved = peak_reserved,
	                           .limit = limit,
	                       });
}

void cudatrace_python_framework_oom(uint32_t framework, uint32_t device, uint64_t requested,
                                    uint64_t limit, uint64_t device_free)
{
	ensure_context();
	EMIT(framework_oom, &(struct ct_ev_framework_oom){
	                        .framework = framework_of(framework),
	                        .device = device,
	                        .requested = requested,
	                        .limit = limit,
	                        .device_free = device_free,
	                    });
	/* who else held the device, as for a failed allocation */
	if (device < CT_DEVICE_NONE)
		nvml_list_processes((uint8_t)device);
}

void cudatrace_python_framework_site(uint32_t framework, uint32_t device, uint32_t at,
                                     uint64_t bytes, uint64_t count, const char *file,
                                     uint32_t line, const char *function)
{
	ensure_context();
	file = text_or_empty(file);
	function = text_or_empty(function);
	EMIT(framework_site, &(struct ct_ev_framework_site){
	                         .framework = framework_of(framework),
	                         .device = device,
	                         .at = moment_of(at),
	                         .bytes = bytes,
	                         .count = count,
	                         .file = file,
	                         .file_len = text_length(file),
	                         .line = line,
	                         .function = function,
	                         .function_len = text_length(function),
	                     });
}

void cudatrace_python_exception(const char *type, const char *message, const char *file,
                                uint32_t line, const char *function, const char *raised_file,
                                uint32_t raised_line)
{
	ensure_context();
	type = text_or_empty(type);
	message = text_or_empty(message);
	file = text_or_empty(file);
	function = text_or_empty(function);
	raised_file = text_or_empty(raised_file);
	EMIT(python_exception, &(struct ct_ev_python_exception){
	                           .type = type,
	                           .type_len = text_length(type),
	                           .message = message,
	                           .message_len = text_length(message),
	                           .file = file,
	                           .file_len = text_length(file),
	                           .line = line,
	                           .function = function,
	                           .function_len = text_length(function),
	                           .raised_file = raised_file,
	                           .raised_file_len = text_length(raised_file),
	                           .raised_line = raised_line,
	                       });
	/* an out-of-memory error may be what it dies of: who held the devices */
	nvml_list_all_processes();
}

void cudatrace_python_exit(uint32_t threads)
{
	ensure_context();
	EMIT(python_exit, &(struct ct_ev_python_exit){ .threads = threads });
}
