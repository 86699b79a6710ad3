/* SPDX-License-Identifier: MIT */
/*
 * recorded.h - what `cudatrace record` kept beside a trace, apart from
 * the trace: the driver's CUDA version it found before starting the
 * program and where CUDA's libraries are expected to come from
 * (cudatrace.info), and the shared objects each process loaded,
 * as the dynamic linker's audit interface listed them (objects-PID,
 * libtrace/audit.c). A program whose CUDA runtime refused the driver
 * leaves no event (the runtime fails before the driver loads the
 * tracer): this is then all that says which driver and runtime it had.
 * The caller (cli/recorded.c) reads the files; the environment analysis
 * uses what the trace does not say.
 */
#ifndef CUDATRACE_ANALYZERS_RECORDED_H
#define CUDATRACE_ANALYZERS_RECORDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One shared object, as the dynamic linker mapped it. */
struct ct_recorded_object {
	char *path;     /* as the dynamic linker resolved it */
	char *soname;   /* "" when it has none */
	char *build_id; /* hex; "" when it has none */
	char *file;     /* the file path leads to through symbolic links; "" if unknown */
};

struct ct_recorded_process {
	int64_t pid;
	char *procname;    /* the name of the program file; "" if unknown */
	int driver_cuda;   /* the driver's CUDA version (12020); 0 if unknown */
	char *driver_path; /* libcuda.so.1 as the recorder found it; "" if unknown */
	struct ct_recorded_object *objects; /* in the order of loading */
	size_t object_count;
	/* Where its CUDA libraries are expected to come from (the toolkit,
	 * CUDA_HOME, the Python environment), as the recorder saw them. */
	char **places;
	size_t place_count;
};

struct ct_recorded {
	struct ct_recorded_process *processes;
	size_t count;
};

/* Whether the process loaded one of NVIDIA's CUDA libraries (compat.h's
 * ct_library_identify): then CUDA was meant to run in it. */
bool ct_recorded_loaded_cuda(const struct ct_recorded_process *process);

#endif
