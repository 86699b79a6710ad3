/* SPDX-License-Identifier: MIT */
/*
 * tracer-lib.h - where libcudatrace.so is: the one named on the command
 * line, else $CUDATRACE_LIB (how the tests point at the build tree), else
 * the installed one: beside the command, as installed, or where configure
 * said it would be. Whichever it is, it must be a library the CUDA driver
 * can inject (tracer_lib_check): anything else would leave the program
 * running untraced without a word.
 */
#ifndef CUDATRACE_CLI_TRACER_LIB_H
#define CUDATRACE_CLI_TRACER_LIB_H

#include <stddef.h>

#define TRACER_LIB_ENV "CUDATRACE_LIB"
/* The function the CUDA driver calls in the library CUDA_INJECTION64_PATH names. */
#define TRACER_ENTRY_POINT "InitializeInjection"

/*
 * Writes the absolute path of the tracing library to OUT. OPTION is the
 * --library argument, or NULL. Returns 0, or -1 after a message saying
 * how to name the library.
 */
int tracer_lib_find(const char *option, char *out, size_t len);

/*
 * PATH is a library the CUDA driver can inject: a 64-bit ELF shared object
 * for this machine that exports TRACER_ENTRY_POINT as a function. Returns
 * 0, or -1 with what is wrong in WHY (LEN bytes). Nothing of it is run.
 */
int tracer_lib_check(const char *path, char *why, size_t len);

/* The tracer built against CUPTI 12, for drivers older than R580, lies
 * beside libcudatrace.so (built against CUPTI 13) under this name. */
#define TRACER_LIB_NAME        "libcudatrace.so"
#define TRACER_LIB_CUDA12_NAME "libcudatrace-cuda12.so"

/*
 * The tracer to inject for a driver whose CUPTI is CUPTI_MAJOR
 * (ct_compat_tracer_cupti: 13, 12, or 0 for none): PATH, found by
 * tracer_lib_find, when it is not named libcudatrace.so or CUPTI_MAJOR is
 * not 12; else its sibling libcudatrace-cuda12.so, written to PATH (LEN
 * bytes). Returns 0 with PATH the one to use, or -1 when that sibling is
 * not there (PATH unchanged).
 */
int tracer_lib_for_cupti(char *path, size_t len, int cupti_major);

/* The path of the installed library (a build-time constant). */
const char *tracer_lib_installed(void);

/*
 * Where the library of an installed tree lies relative to COMMAND_DIR, the
 * directory the cudatrace command runs from, when BINDIR and PKGLIBDIR are
 * where the tree was meant to go: writes PKGLIBDIR/libcudatrace.so as seen
 * from COMMAND_DIR standing for BINDIR to OUT. All three are absolute.
 * Returns 0, or -1 when they are not absolute or OUT is too short.
 */
int tracer_lib_relative(const char *bindir, const char *pkglibdir, const char *command_dir,
                        char *out, size_t len);

#endif
