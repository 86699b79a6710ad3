/* SPDX-License-Identifier: MIT */
/*
 * tap.h - a tiny TAP producer for test programs that cannot use cmocka
 * (nvcc-compiled ones, and programs whose checks are interleaved with the
 * work they describe). Header-only; C and C++.
 *
 * The plan is printed last, by tap_done(), so that a program that dies half
 * way leaves no plan and the harness reports it as an error.
 */
#ifndef CUDATRACE_TESTS_TAP_H
#define CUDATRACE_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count;
static int tap_failures;

/* The rest of a line: FMT with AP, a newline, and the line flushed. */
static inline void __attribute__((format(printf, 1, 0))) tap_vline(const char *fmt, va_list ap)
{
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

/* ok N - what (cond true) or not ok N - what. Returns cond. */
static inline int __attribute__((format(printf, 2, 3))) tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failures++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	tap_vline(fmt, ap);
	va_end(ap);
	return cond;
}

/* A comment line: # text. */
static inline void __attribute__((format(printf, 1, 2))) tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	tap_vline(fmt, ap);
	va_end(ap);
}

/*
 * An operation the program made, for the ledger checkers
 * (tests/lib/simcheck.py): # expect key=value ...
 */
static inline void __attribute__((format(printf, 1, 0))) tap_vexpect(const char *fmt, va_list ap)
{
	printf("# expect ");
	tap_vline(fmt, ap);
}

static inline void __attribute__((format(printf, 1, 2))) tap_expect(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vexpect(fmt, ap);
	va_end(ap);
}

/* Print the plan; the value to return from main. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	fflush(stdout);
	return tap_failures ? 1 : 0;
}

#endif /* CUDATRACE_TESTS_TAP_H */
