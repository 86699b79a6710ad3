/* SPDX-License-Identifier: MIT */
/*
 * device-code.h - the GPU architectures a program or library carries
 * code for: the entries of the fat binaries nvcc embeds in its
 * `.nv_fatbin` section, read from the file on disk.
 */
#ifndef CUDATRACE_DEVICE_CODE_H
#define CUDATRACE_DEVICE_CODE_H

#include <stddef.h>

/*
 * Writes the architectures of the device code in the ELF file at path to
 * out, in file order and each once: "sm_90" for a cubin (SASS),
 * "compute_80" for PTX, with "a" or "f" for arch- and family-specific
 * code ("sm_90a"), comma-separated. out is "" when the file has no
 * `.nv_fatbin` section or cannot be read. Returns out.
 */
const char *device_code_of_file(const char *path, char *out, size_t size);

/*
 * The same for a module's image of image_size bytes in memory (CUPTI's
 * pCubin and cubinSize): the entries of the fat binaries it is made of,
 * or the architecture of a single cubin ("sm_90"); "" for anything else.
 * Nothing past image_size is read. Returns out.
 */
const char *device_code_of_image(const void *image, size_t image_size, char *out, size_t size);

/*
 * The same for an image as cuModuleLoadData takes it, with no size: a fat
 * binary (its header gives its size), a cubin ("sm_90", from its ELF
 * header) or PTX text ("compute_80", from its .target directive). Only
 * as much is read as the driver must read to tell them apart. Returns out.
 */
const char *device_code_of_load_image(const void *image, char *out, size_t size);

/* The PTX ISA version of PTX text, times 10 (".version 9.0": 90), from its
 * .version directive (PTX ISA, "PTX Module Directives"); 0 for anything
 * else. As much is read as device_code_of_load_image reads of it. */
int device_code_ptx_isa(const void *image);

#endif /* CUDATRACE_DEVICE_CODE_H */
