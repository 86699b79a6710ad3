/* SPDX-License-Identifier: MIT */
/*
 * lib-probe.h - CUDA's libraries loaded to be asked what they are, as a
 * program would load them: by soname, through the dynamic linker's
 * search (LD_LIBRARY_PATH, RUNPATH, the ld.so cache), and called through
 * their C ABI (CUresult is an int), so that no CUDA header is needed.
 * `cudatrace doctor` asks them; `cudatrace record` asks the driver which
 * CUDA version it supports before it starts the program.
 */
#ifndef CUDATRACE_CLI_LIB_PROBE_H
#define CUDATRACE_CLI_LIB_PROBE_H

#include <stddef.h>

/*
 * The first of NAMES (NULL-terminated) that loads (RTLD_NOW | RTLD_LOCAL):
 * its handle, with the name in *WHICH and the file it was loaded from in
 * PATH (SIZE bytes). NULL when none loads (dlerror() says why).
 */
void *lib_probe_open(const char *const *names, const char **which, char *path, size_t size);

/* The file a dlopen handle was loaded from, into OUT ("" if unknown). */
void lib_probe_path(void *handle, char *out, size_t size);

/*
 * The CUDA version the driver CUDA (a handle of libcuda.so.1) supports,
 * from cuDriverGetVersion, which needs no cuInit: its CUresult (0 with
 * *VERSION set), or -1 when the library does not export it.
 */
int lib_probe_driver_version(void *cuda, int *version);

#endif
