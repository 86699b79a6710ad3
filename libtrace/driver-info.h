/* SPDX-License-Identifier: MIT */
/*
 * driver-info.h - the driver_info event: the CUDA version the driver
 * supports (cuDriverGetVersion) and the driver's own version (NVML).
 */
#ifndef CUDATRACE_DRIVER_INFO_H
#define CUDATRACE_DRIVER_INFO_H

/* Ask the driver and NVML, once, at start-up. */
void driver_info_read(void);

/* Emit driver_info (with tracer_info). */
void driver_info_emit(void);

#endif /* CUDATRACE_DRIVER_INFO_H */
