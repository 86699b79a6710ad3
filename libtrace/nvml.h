/* SPDX-License-Identifier: MIT */
/*
 * nvml.h - device memory as NVML sees it, without any CUDA call.
 *
 * libnvidia-ml.so.1 is opened at run time: cudatrace has no link-time
 * dependency on it and works without it (the fields are then 0).
 */
#ifndef CUDATRACE_NVML_H
#define CUDATRACE_NVML_H

#include <stdbool.h>
#include <stdint.h>

#include "field-values.h"

/* Open and initialise NVML once; false if it is not available. */
bool nvml_open(void);

/* The CUDA driver version NVML reports (e.g. 13000), or 0. */
int32_t nvml_driver_version(void);

/* The driver's own version ("580.65.06") into out; false if unknown. */
bool nvml_driver_text(char *out, unsigned size);

/* Read the memory of CUDA device `device` into sample; false if unknown. */
bool nvml_read(uint8_t device, enum ct_nvml_reason reason, struct ct_ev_nvml_sample *sample);

/*
 * Emit an nvml_process for each process NVML lists on DEVICE, with the
 * memory it uses (if the event is enabled): who holds the device, after a
 * failed allocation or a framework's out-of-memory error.
 */
void nvml_list_processes(uint8_t device);

/* nvml_list_processes for every device NVML has: at a death, whose device is not known. */
void nvml_list_all_processes(void);

/* Read and emit one nvml_sample for device (if the event is enabled). */
void nvml_sample_device(uint8_t device, enum ct_nvml_reason reason);

/* Tell NVML's device matching the UUID of CUDA device `device` (from the
 * DEVICE activity record), so that samples follow CUDA's numbering. */
void nvml_map_device(uint8_t device, const uint8_t uuid[16]);

/* The sampler thread for CUDATRACE_NVML_PERIOD_MS; stop is bounded. */
void nvml_sampler_start(uint32_t period_ms);
void nvml_sampler_stop(void);

#endif /* CUDATRACE_NVML_H */
