/* SPDX-License-Identifier: MIT */
/*
 * compat.h - NVIDIA's compatibility rules as pure functions: versions,
 * architectures and loaded libraries in, findings out, each with the
 * rule behind it (and where NVIDIA states it) and what to do. No
 * babeltrace, no I/O: `cudatrace doctor` feeds it what it finds on the
 * machine, the report what a trace recorded.
 *
 * Versions are CUDA versions as cuDriverGetVersion and
 * cudaRuntimeGetVersion encode them (1000 * major + 10 * minor: 12020 is
 * CUDA 12.2); architectures as nvcc names them (80 for sm_80 and
 * compute_80).
 */
#ifndef CUDATRACE_ANALYZERS_COMPAT_H
#define CUDATRACE_ANALYZERS_COMPAT_H

#include <stdbool.h>
#include <stddef.h>

/* ------------------------------------------------------------ NVIDIA's tables */

/*
 * One CUDA toolkit release: NVIDIA's CUDA Toolkit Release Notes, "CUDA
 * Toolkit and Corresponding Driver Versions" (the Linux x86_64 driver its
 * GA release shipped with) and "CUDA Toolkit Minimum Driver Versions for
 * Minor Version Compatibility" (the least driver branch of its major
 * family); the release notes' removed-architecture notices (the oldest
 * compute capability its compiler and libraries support).
 */
struct ct_cuda_release {
	int cuda_version;      /* 12020 */
	const char *driver;    /* "535.54.03": the toolkit's own driver */
	int family_min_branch; /* 525: the least driver of its major family */
	int min_compute;       /* 50: the oldest compute capability, x 10 */
};

/* The release of a CUDA version, or NULL when the table has none. */
const struct ct_cuda_release *ct_cuda_release_find(int cuda_version);
/* The least driver branch a runtime of cuda_version needs: its major
 * family's minimum (580 for any 13.x); 0 when the major is unknown. */
int ct_cuda_min_driver_branch(int cuda_version);
/* The CUDA version of the driver branch (580 -> 13000): the latest
 * toolkit whose own driver is of that branch or older; 0 if none. */
int ct_driver_branch_cuda_version(int branch);
/* The CUDA version that introduced a PTX ISA version (x 10: 90 for 9.0),
 * from the PTX ISA reference's release history: 13000 for 90. */
int ct_ptx_isa_cuda_version(int isa);

/* "12.2" for 12020, into buf. */
const char *ct_cuda_version_text(int cuda_version, char *buf, size_t size);
/* 12040 for "12.4" or "12.4.131" (a library's file name version), 12000
 * for "12"; 0 when text does not start with a number. */
int ct_cuda_version_parse(const char *text);

/* ------------------------------------------------------------ findings */

enum ct_compat_severity {
	CT_COMPAT_NOTE,    /* works, with a cost worth knowing */
	CT_COMPAT_WARNING, /* may fail, or works by chance */
	CT_COMPAT_ERROR,   /* CUDA cannot work this way */
};

#define CT_COMPAT_TEXT 512

struct ct_compat_finding {
	enum ct_compat_severity severity;
	const char *id;              /* stable name: "driver-too-old", ... */
	char what[CT_COMPAT_TEXT];   /* what is wrong, with the versions */
	char rule[CT_COMPAT_TEXT];   /* NVIDIA's rule and where it is stated */
	char action[CT_COMPAT_TEXT]; /* what to do */
};

#define CT_COMPAT_MAX_FINDINGS 32

struct ct_compat_findings {
	size_t count;
	size_t dropped; /* findings past CT_COMPAT_MAX_FINDINGS */
	struct ct_compat_finding items[CT_COMPAT_MAX_FINDINGS];
};

void ct_compat_init(struct ct_compat_findings *findings);
/* The worst severity found; -1 when there is none. */
int ct_compat_worst(const struct ct_compat_findings *findings);
const char *ct_compat_severity_name(enum ct_compat_severity severity);

/* ------------------------------------------------------------ rules */

/*
 * The runtime against the driver (CUDA Compatibility, "Minor Version
 * Compatibility"): a runtime of major version M works on a driver of CUDA
 * M.0 or later; of the same major but an older minor, it works without
 * the newer features and PTX JIT ("driver-older-minor", a note); older
 * still, it fails with cudaErrorInsufficientDriver ("driver-too-old").
 * driver_branch (580) may be 0 when unknown.
 */
void ct_compat_check_driver(int driver_cuda, int driver_branch, int runtime_cuda,
                            struct ct_compat_findings *out);

/*
 * Which of cudatrace's tracers a driver of driver_cuda can run: the one
 * built against CUPTI 13 (returns 13) or against CUPTI 12 (12), or
 * neither (0, also when driver_cuda is 0, unknown). A CUPTI follows its
 * toolkit's compatibility with the driver (CUPTI's "CUPTI Compatibility
 * and Requirements": with too old a driver every CUPTI call fails with
 * CUPTI_ERROR_NOT_INITIALIZED), and a toolkit of major M runs on any
 * driver of CUDA M.0 or later (CUDA Compatibility, "Minor Version
 * Compatibility": 12.x from R525, 13.x from R580): the newest CUPTI whose
 * major the driver supports. why (size bytes) says so, with the versions.
 */
int ct_compat_tracer_cupti(int driver_cuda, char *why, size_t size);

/* The device against the toolkit that built the code: a compute
 * capability older than the toolkit supports ("device-unsupported"). */
void ct_compat_check_device(int device_cc, int toolkit_cuda, struct ct_compat_findings *out);

/* One piece of device code of a module: a cubin (SASS) or PTX. */
struct ct_code {
	bool ptx;
	int arch;     /* 90 for sm_90 / compute_90 */
	char variant; /* 'a' arch-specific, 'f' family-specific, 0 */
	int isa;      /* PTX ISA version x 10 (90 for 9.0); 0 when unknown */
};

/*
 * What a device of compute capability device_cc (x 10) runs of a module
 * and a driver of driver_cuda, per the CUDA C++ Programming Guide
 * ("Binary Compatibility", "PTX Compatibility", "Application
 * Compatibility"): a cubin of the same major at or below the device's
 * minor (arch-specific: that compute capability only), else PTX at or
 * below the device, JIT-compiled. Returns the index of the code chosen,
 * or -1; the findings say "no-code-for-device" (none fits), "ptx-jit"
 * (PTX is JIT-compiled) or "ptx-too-new" (its ISA needs a newer driver).
 * module names the module in the messages (a path, or NULL).
 */
int ct_compat_check_code(int device_cc, int driver_cuda, const struct ct_code *codes, size_t count,
                         const char *module, struct ct_compat_findings *out);

/* "sm_90", "compute_80", "sm_90a" into buf. */
const char *ct_code_name(const struct ct_code *code, char *buf, size_t size);

/* The codes of a comma-separated list of such names (library_load's
 * device_code), at most max; names it cannot read are left out. Returns
 * how many. */
size_t ct_code_parse_list(const char *list, struct ct_code *codes, size_t max);

/* One shared library loaded (or found) in a process. */
struct ct_library {
	const char *path;    /* as the dynamic linker resolved it */
	const char *version; /* as the library reports it (12040, "12.4"); NULL or "" when
	                      * unknown: the version in its file name counts then */
};

/*
 * Shared libraries against each other and against where they are
 * expected: "stub-driver" (the toolkit's stub libcuda.so, which makes
 * every call fail with cudaErrorStubLibrary), "duplicate-library" (two
 * copies of one CUDA library with different versions in one process),
 * "unexpected-location" (a CUDA library outside every directory of
 * expected, when expected is not empty: the toolkit, the Python
 * environment's nvidia/ packages), "library-major-mismatch" (a toolkit
 * library of another major version than the runtime, runtime_cuda 0 when
 * unknown).
 */
void ct_compat_check_libraries(const struct ct_library *libs, size_t count,
                               const char *const *expected, size_t expected_count, int runtime_cuda,
                               struct ct_compat_findings *out);

/*
 * The name and version of a CUDA library from its path:
 * "/x/libcublas.so.12.4.5.8" -> "libcublas", "12.4.5.8". False when the
 * file is not one of NVIDIA's CUDA libraries (libcuda, libcudart,
 * libcublas, libcublasLt, libcudnn*, libcufft, libcurand, libcusparse,
 * libcusolver, libnvrtc, libnvJitLink, libcupti, libnccl, libnvidia-ml);
 * version is "" when the name has none.
 */
bool ct_library_identify(const char *path, char *name, size_t name_size, char *version,
                         size_t version_size);

#endif
