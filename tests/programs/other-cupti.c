/* SPDX-License-Identifier: MIT */
/*
 * other-cupti.c - a CUPTI that must never be called: libcupti.so.13 as a
 * framework's wheel ships it, beside the one the tracer uses. Its
 * functions kill the process (SIGABRT), as the wheel's cuptiGetVersion does
 * on the simulated GPU, where it recurses until the stack overflows
 * (SIGSEGV). Built as programs/other-cupti/libcupti.so.13.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* The two functions cudatrace would call first, with the ABI of CUPTI's
 * headers (CUptiResult is an enum: int). */
EXPORT int cuptiGetVersion(uint32_t *version);
EXPORT int cuptiGetResultString(int result, const char **text);

static void called(const char *name)
{
	static const char what[] = "other-cupti: the process called ";

	/* Nothing to do when stderr is gone: the abort says it. */
	if (write(2, what, sizeof(what) - 1) >= 0 && write(2, name, strlen(name)) >= 0)
		(void)!write(2, "\n", 1);
	abort();
}

/* cupti_version.h */
int cuptiGetVersion(uint32_t *version)
{
	(void)version;
	called("cuptiGetVersion");
	return 0;
}

/* cupti_result.h */
int cuptiGetResultString(int result, const char **text)
{
	(void)result;
	(void)text;
	called("cuptiGetResultString");
	return 0;
}
