/* SPDX-License-Identifier: MIT */
/*
 * test-demangle.c - C++ names as people read them (common/demangle.h),
 * held against binutils' c++filt: kernel names and the C++ frames of
 * PyTorch's and XLA's libraries; names that are not C++ names, or not
 * valid ones, are left to the caller (NULL).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/demangle.h"

/* What c++filt makes of NAME, without its newline, in BUF. */
static const char *cxxfilt(const char *name, char *buf, size_t len)
{
	char command[1024];
	FILE *p;
	size_t n;

	snprintf(command, sizeof(command), "c++filt '%s'", name);
	p = popen(command, "r");
	assert_non_null(p);
	n = fread(buf, 1, len - 1, p);
	assert_int_equal(pclose(p), 0);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void test_as_cxxfilt(void **unused)
{
	static const char *const names[] = {
		"_Z6kernelPfi",
		"_ZN5torch8autogradL17THPVariable_emptyEP7_objectS2_S2_",
		"_ZN3c1020CUDACachingAllocator6Native22NativeCachingAllocator6mallocEPPvamP11CUstre"
		"am_st",
		"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_"
		"11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
		"_ZN3xla3gpu12_GLOBAL__N_114AllocateBufferEmi",
	};
	char want[4096];

	(void)unused;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *got = ct_demangle(names[i]);

		assert_non_null(got);
		assert_string_equal(got, cxxfilt(names[i], want, sizeof(want)));
		free(got);
	}
}

static void test_not_cxx(void **unused)
{
	(void)unused;
	assert_null(ct_demangle(NULL));
	assert_null(ct_demangle("cudaMalloc"));
	assert_null(ct_demangle("main"));
	/* a "_Z" prefix that does not start a valid name: c++filt leaves it as it is */
	assert_null(ct_demangle("_Zfoo"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_as_cxxfilt),
		cmocka_unit_test(test_not_cxx),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
