/* SPDX-License-Identifier: MIT */
/* stack-lib.h - an allocation made inside a shared library (stack-alloc.c). */
#ifndef STACK_LIB_H
#define STACK_LIB_H

#define STACK_LIB_FILE "stack-lib.c"
#define STACK_LIB_SIZE (7u << 20)

/* cudaMalloc STACK_LIB_SIZE bytes, never freed; *line: the line of the
 * cudaMalloc. 0 on success. */
int lib_leak(unsigned *line);

/* libstack-late.so, loaded with dlopen: the same, STACK_LATE_SIZE bytes. */
#define STACK_LATE_FILE "stack-late.c"
#define STACK_LATE_SIZE (6u << 20)
typedef int late_leak_fn(unsigned *line);
late_leak_fn late_leak;

#endif
