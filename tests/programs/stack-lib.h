/* SPDX-License-Identifier: MIT */
/* stack-lib.h - an allocation made inside a shared library (stack-alloc.c). */
#ifndef STACK_LIB_H
#define STACK_LIB_H

#define STACK_LIB_FILE "stack-lib.c"
#define STACK_LIB_SIZE (7u << 20)

/* cudaMalloc STACK_LIB_SIZE bytes, never freed; *line: the line of the
 * cudaMalloc. 0 on success. */
int lib_leak(unsigned *line);

#endif
