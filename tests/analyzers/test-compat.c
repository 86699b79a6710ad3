/* SPDX-License-Identifier: MIT */
/*
 * test-compat.c - NVIDIA's compatibility rules (analyzers/common/compat.c)
 * against NVIDIA's tables: the driver each toolkit needs, which device
 * code a device runs, PTX ISA versions, and the libraries of a process.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/compat.h"

/* The one finding with this id, or NULL. */
static const struct ct_compat_finding *find(const struct ct_compat_findings *f, const char *id)
{
	const struct ct_compat_finding *found = NULL;

	for (size_t i = 0; i < f->count; i++) {
		if (!strcmp(f->items[i].id, id)) {
			assert_null(found);
			found = &f->items[i];
		}
	}
	return found;
}

/* Every finding says what, why (with NVIDIA's source) and what to do. */
static void assert_complete(const struct ct_compat_findings *f)
{
	for (size_t i = 0; i < f->count; i++) {
		assert_true(strlen(f->items[i].what) > 10);
		assert_true(strlen(f->items[i].rule) > 10);
		assert_true(strlen(f->items[i].action) > 10);
	}
}

/* CUDA Toolkit Release Notes: the toolkits' own drivers, and the
 * minimum of each major family for minor version compatibility. */
static void test_release_table(void **unused)
{
	const struct ct_cuda_release *r = ct_cuda_release_find(13000);
	char buf[16];

	assert_non_null(r);
	assert_string_equal(r->driver, "580.65.06");
	assert_string_equal(ct_cuda_release_find(12020)->driver, "535.54.03");
	assert_string_equal(ct_cuda_release_find(12080)->driver, "570.26");
	assert_string_equal(ct_cuda_release_find(11080)->driver, "520.61.05");
	assert_null(ct_cuda_release_find(12070)); /* never released */
	assert_int_equal(ct_cuda_min_driver_branch(13000), 580);
	assert_int_equal(ct_cuda_min_driver_branch(13010), 580); /* a 13.x unknown here */
	assert_int_equal(ct_cuda_min_driver_branch(12090), 525);
	assert_int_equal(ct_cuda_min_driver_branch(12000), 525);
	assert_int_equal(ct_cuda_min_driver_branch(11040), 450);
	assert_int_equal(ct_cuda_min_driver_branch(10020), 440); /* no minor compatibility */
	assert_int_equal(ct_driver_branch_cuda_version(535), 12020);
	assert_int_equal(ct_driver_branch_cuda_version(580), 13000);
	assert_int_equal(ct_driver_branch_cuda_version(570), 12080);
	assert_int_equal(ct_driver_branch_cuda_version(300), 0);
	assert_string_equal(ct_cuda_version_text(12020, buf, sizeof(buf)), "12.2");
	assert_string_equal(ct_cuda_version_text(13000, buf, sizeof(buf)), "13.0");
}

/* The versions of libraries' file names (libcudart.so.12.4.131), as CUDA versions. */
static void test_version_parse(void **unused)
{
	(void)unused;
	assert_int_equal(ct_cuda_version_parse("12.4.131"), 12040);
	assert_int_equal(ct_cuda_version_parse("13.0"), 13000);
	assert_int_equal(ct_cuda_version_parse("13"), 13000);
	assert_int_equal(ct_cuda_version_parse("11.8.89"), 11080);
	assert_int_equal(ct_cuda_version_parse(""), 0);
	assert_int_equal(ct_cuda_version_parse("x.1"), 0);
	assert_int_equal(ct_cuda_version_parse("0.5"), 0);
	/* A minor past any CUDA release is not taken for one. */
	assert_int_equal(ct_cuda_version_parse("12.400"), 12000);
}

/* PTX ISA reference, release history. */
static void test_ptx_isa_versions(void **unused)
{
	assert_int_equal(ct_ptx_isa_cuda_version(90), 13000);
	assert_int_equal(ct_ptx_isa_cuda_version(88), 12090);
	assert_int_equal(ct_ptx_isa_cuda_version(87), 12080);
	assert_int_equal(ct_ptx_isa_cuda_version(86), 12070);
	assert_int_equal(ct_ptx_isa_cuda_version(85), 12050);
	assert_int_equal(ct_ptx_isa_cuda_version(80), 12000);
	assert_int_equal(ct_ptx_isa_cuda_version(78), 11080);
	assert_int_equal(ct_ptx_isa_cuda_version(70), 11000);
	assert_int_equal(ct_ptx_isa_cuda_version(65), 10020);
	assert_int_equal(ct_ptx_isa_cuda_version(91), 13010);
	assert_int_equal(ct_ptx_isa_cuda_version(95), 13050);
}

static void test_driver_too_old(void **unused)
{
	struct ct_compat_findings f;
	const struct ct_compat_finding *x;

	ct_compat_init(&f);
	ct_compat_check_driver(12020, 535, 13000, &f);
	x = find(&f, "driver-too-old");
	assert_non_null(x);
	assert_int_equal(x->severity, CT_COMPAT_ERROR);
	assert_non_null(strstr(x->what, "the driver supports CUDA 12.2"));
	assert_non_null(strstr(x->what, "runtime is 13.0, which needs driver 580 or newer"));
	assert_non_null(strstr(x->what, "cudaErrorInsufficientDriver"));
	assert_non_null(strstr(x->rule, "Minor Version Compatibility"));
	assert_non_null(strstr(x->action, "580"));
	assert_non_null(strstr(x->action, "cuda-compat-13-0"));
	assert_int_equal(ct_compat_worst(&f), CT_COMPAT_ERROR);
	assert_complete(&f);

	/* CUDA 12.x runtimes need 525; an 11.8 driver is too old. */
	ct_compat_init(&f);
	ct_compat_check_driver(11080, 0, 12040, &f);
	x = find(&f, "driver-too-old");
	assert_non_null(x);
	assert_non_null(strstr(x->what, "needs driver 525 or newer"));
}

static void test_driver_fits(void **unused)
{
	struct ct_compat_findings f;
	const struct ct_compat_finding *x;

	/* Same or newer: nothing to say. */
	ct_compat_init(&f);
	ct_compat_check_driver(13000, 580, 13000, &f);
	ct_compat_check_driver(13000, 580, 12040, &f); /* backward compatibility */
	ct_compat_check_driver(0, 0, 13000, &f);       /* unknown driver */
	assert_int_equal(f.count, 0);
	assert_int_equal(ct_compat_worst(&f), -1);

	/* Same major, older minor: minor version compatibility, a note. */
	ct_compat_check_driver(12020, 535, 12080, &f);
	x = find(&f, "driver-older-minor");
	assert_non_null(x);
	assert_int_equal(x->severity, CT_COMPAT_NOTE);
	assert_non_null(strstr(x->action, "570.26"));
	assert_complete(&f);

	/* Before CUDA 11 there is no such thing. */
	ct_compat_init(&f);
	ct_compat_check_driver(10010, 418, 10020, &f);
	assert_non_null(find(&f, "driver-too-old"));
}

/* The tracer for each driver branch, by NVIDIA's table of each toolkit's
 * own driver: R525 to R575 drivers (CUDA 12.0 to 12.9) run the CUPTI 12
 * one, R580 and later the CUPTI 13 one, older ones neither. */
static void test_tracer_cupti(void **unused)
{
	static const struct {
		int branch, cupti;
	} cases[] = {
		{ 520, 0 },  { 525, 12 }, { 535, 12 }, { 550, 12 },
		{ 570, 12 }, { 575, 12 }, { 580, 13 },
	};
	char why[CT_COMPAT_TEXT], v[16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int cuda = ct_driver_branch_cuda_version(cases[i].branch);

		assert_int_equal(ct_compat_tracer_cupti(cuda, why, sizeof(why)), cases[i].cupti);
		/* why names the driver's CUDA version and NVIDIA's two sources */
		assert_non_null(strstr(why, ct_cuda_version_text(cuda, v, sizeof(v))));
		assert_non_null(strstr(why, "CUPTI Compatibility and Requirements"));
		assert_non_null(strstr(why, "Minor Version Compatibility"));
	}
	/* a later CUDA 13 driver, and an unknown one */
	assert_int_equal(ct_compat_tracer_cupti(13010, why, sizeof(why)), 13);
	assert_int_equal(ct_compat_tracer_cupti(0, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "unknown"));
	/* the CUPTI 12 tracer says why not CUPTI 13: the R580 it needs */
	assert_int_equal(ct_compat_tracer_cupti(12020, why, sizeof(why)), 12);
	assert_non_null(strstr(why, "CUPTI 13 needs a driver of CUDA 13.0 (R580)"));
}

static void test_device_unsupported(void **unused)
{
	struct ct_compat_findings f;

	ct_compat_init(&f);
	ct_compat_check_device(75, 13000, &f);
	ct_compat_check_device(90, 13000, &f);
	ct_compat_check_device(50, 12000, &f);
	assert_int_equal(f.count, 0);
	ct_compat_check_device(70, 13000, &f); /* Volta: dropped by 13.0 */
	assert_non_null(find(&f, "device-unsupported"));
	assert_non_null(strstr(f.items[0].what, "compute capability 7.0"));
	assert_complete(&f);
}

/* CUDA C++ Programming Guide, "Binary Compatibility", "PTX Compatibility". */
static void test_code_selection(void **unused)
{
	const struct ct_code sm90[] = { { false, 90, 0, 0 } };
	const struct ct_code sm80_86[] = { { false, 80, 0, 0 }, { false, 86, 0, 0 } };
	const struct ct_code ptx80_sm90[] = { { true, 80, 0, 90 }, { false, 90, 0, 0 } };
	const struct ct_code sm90a[] = { { false, 90, 'a', 0 } };
	const struct ct_code sm100f[] = { { false, 100, 'f', 0 } };
	const struct ct_code ptx90a[] = { { true, 90, 'a', 90 } };
	struct ct_compat_findings f;

	ct_compat_init(&f);
	/* A cubin: same major, at or above its minor. */
	assert_int_equal(ct_compat_check_code(90, 13000, sm90, 1, NULL, &f), 0);
	assert_int_equal(ct_compat_check_code(80, 13000, sm80_86, 2, NULL, &f), 0);
	assert_int_equal(ct_compat_check_code(86, 13000, sm80_86, 2, NULL, &f), 1);
	assert_int_equal(ct_compat_check_code(89, 13000, sm80_86, 2, NULL, &f), 1);
	/* A cubin is preferred to PTX. */
	assert_int_equal(ct_compat_check_code(90, 13000, ptx80_sm90, 2, NULL, &f), 1);
	/* Arch-specific: that compute capability only; family: its family. */
	assert_int_equal(ct_compat_check_code(90, 13000, sm90a, 1, NULL, &f), 0);
	assert_int_equal(ct_compat_check_code(103, 13000, sm100f, 1, NULL, &f), 0);
	assert_int_equal(f.count, 0);

	/* PTX of compute_80 on 8.6: JIT. */
	assert_int_equal(ct_compat_check_code(86, 13000, ptx80_sm90, 2, "train", &f), 0);
	assert_int_equal(f.count, 1);
	assert_string_equal(f.items[0].id, "ptx-jit");
	assert_int_equal(f.items[0].severity, CT_COMPAT_NOTE);
	assert_non_null(strstr(f.items[0].what, "train: "));
	assert_non_null(strstr(f.items[0].what, "JIT-compiled at load"));
	assert_non_null(strstr(f.items[0].action, "code=sm_86"));
	assert_complete(&f);

	/* None fits: a later major, an earlier one, another minor for 'a'. */
	ct_compat_init(&f);
	assert_int_equal(ct_compat_check_code(80, 13000, sm90, 1, NULL, &f), -1);
	assert_int_equal(ct_compat_check_code(100, 13000, sm90, 1, NULL, &f), -1);
	assert_int_equal(ct_compat_check_code(75, 13000, ptx80_sm90, 2, NULL, &f), -1);
	assert_int_equal(ct_compat_check_code(100, 13000, ptx90a, 1, NULL, &f), -1);
	assert_int_equal(ct_compat_check_code(120, 13000, sm100f, 1, NULL, &f), -1);
	assert_int_equal(f.count, 5);
	assert_string_equal(f.items[0].id, "no-code-for-device");
	assert_int_equal(f.items[0].severity, CT_COMPAT_ERROR);
	assert_non_null(strstr(f.items[0].what, "compiled for sm_90 only; the device is compute "
	                                        "capability 8.0"));
	assert_non_null(strstr(f.items[0].action, "-gencode arch=compute_80,code=sm_80"));
	assert_non_null(strstr(f.items[0].action, "PTX"));
	assert_non_null(strstr(f.items[2].rule, "PTX is for a later architecture"));
	assert_complete(&f);
}

static void test_ptx_too_new(void **unused)
{
	const struct ct_code ptx80[] = { { true, 80, 0, 90 } };
	const struct ct_code ptx80_old[] = { { true, 80, 0, 87 } };
	struct ct_compat_findings f;

	ct_compat_init(&f);
	assert_int_equal(ct_compat_check_code(80, 12080, ptx80, 1, NULL, &f), 0);
	assert_int_equal(f.count, 1);
	assert_string_equal(f.items[0].id, "ptx-too-new");
	assert_non_null(strstr(f.items[0].what, "PTX ISA 9.0, which came with CUDA 13.0"));
	assert_non_null(strstr(f.items[0].what, "the driver supports CUDA 12.8"));
	assert_non_null(strstr(f.items[0].action, "580.65.06"));
	assert_complete(&f);

	/* ISA 8.7 is CUDA 12.8's: it compiles there. */
	ct_compat_init(&f);
	ct_compat_check_code(80, 12080, ptx80_old, 1, NULL, &f);
	assert_int_equal(f.count, 1);
	assert_string_equal(f.items[0].id, "ptx-jit");
}

static void test_library_identify(void **unused)
{
	char name[64], version[64];

	assert_true(ct_library_identify("/usr/local/cuda/lib64/libcudart.so.13.0.88", name,
	                                sizeof(name), version, sizeof(version)));
	assert_string_equal(name, "libcudart");
	assert_string_equal(version, "13.0.88");
	assert_true(
	    ct_library_identify("libcuda.so.1", name, sizeof(name), version, sizeof(version)));
	assert_string_equal(name, "libcuda");
	assert_string_equal(version, "1");
	assert_true(ct_library_identify("/x/libcudnn_ops.so.9", name, sizeof(name), version,
	                                sizeof(version)));
	assert_string_equal(name, "libcudnn");
	assert_true(
	    ct_library_identify("/x/libcublasLt.so", name, sizeof(name), version, sizeof(version)));
	assert_string_equal(version, "");
	assert_false(
	    ct_library_identify("/lib/libc.so.6", name, sizeof(name), version, sizeof(version)));
	assert_false(ct_library_identify("/lib/libcudart.sox", name, sizeof(name), version,
	                                 sizeof(version)));
}

static void test_libraries(void **unused)
{
	const struct ct_library libs[] = {
		{ "/usr/lib/x86_64-linux-gnu/libcuda.so.1", NULL },
		{ "/usr/local/cuda-13.0/lib64/libcudart.so.13.0.88", NULL },
		{ "/opt/venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.13",
		  NULL },
		{ "/home/u/old/libcublas.so.12.4.5", NULL },
		{ "/usr/local/cuda-13.0/lib64/libcublas.so.13.0.2", NULL },
		{ "/usr/lib/libc.so.6", NULL },
	};
	const char *expected[] = { "/usr/local/cuda-13.0",
		                   "/opt/venv/lib/python3.11/site-packages" };
	struct ct_compat_findings f;
	const struct ct_compat_finding *x;

	ct_compat_init(&f);
	ct_compat_check_libraries(libs, sizeof(libs) / sizeof(libs[0]), expected, 2, 13000, &f);
	assert_complete(&f);
	/* libcublas 13 and 12 in one process; 13 and 13.0.2 are one version. */
	x = find(&f, "duplicate-library");
	assert_non_null(x);
	assert_non_null(strstr(x->what, "libcublas"));
	assert_non_null(strstr(x->what, "/home/u/old/libcublas.so.12.4.5"));
	x = find(&f, "unexpected-location");
	assert_non_null(x);
	/* where a library lies is context for the section, not a finding of the first page */
	assert_int_equal(x->severity, CT_COMPAT_NOTE);
	assert_non_null(strstr(x->what, "/home/u/old"));
	x = find(&f, "library-major-mismatch");
	assert_non_null(x);
	assert_non_null(strstr(x->what, "belongs to CUDA 12; the runtime is CUDA 13.0"));
	assert_null(find(&f, "stub-driver"));
	assert_int_equal(f.count, 3);

	/* Nothing expected: no location finding; the stub driver is an error. */
	{
		const struct ct_library stub[] = { { "/usr/local/cuda/lib64/stubs/libcuda.so",
			                             NULL } };

		ct_compat_init(&f);
		ct_compat_check_libraries(stub, 1, NULL, 0, 0, &f);
		assert_int_equal(f.count, 1);
		assert_string_equal(f.items[0].id, "stub-driver");
		assert_int_equal(f.items[0].severity, CT_COMPAT_ERROR);
		assert_non_null(strstr(f.items[0].what, "cudaErrorStubLibrary"));
	}

	/* The versions the copies report win over their file names: a copy
	 * renamed is still the same version, two builds under one name are
	 * not. */
	{
		const struct ct_library renamed[] = {
			{ "/a/libnvrtc.so.13", "13.0" },
			{ "/b/libnvrtc.so.12", "13.0" },
		};
		const struct ct_library rebuilt[] = {
			{ "/a/libnvrtc.so.13", "13.0" },
			{ "/b/libnvrtc.so.13", "12.4" },
		};

		ct_compat_init(&f);
		ct_compat_check_libraries(renamed, 2, NULL, 0, 0, &f);
		assert_null(find(&f, "duplicate-library"));
		ct_compat_init(&f);
		ct_compat_check_libraries(rebuilt, 2, NULL, 0, 0, &f);
		x = find(&f, "duplicate-library");
		assert_non_null(x);
		assert_non_null(
		    strstr(x->what, "13.0 (/a/libnvrtc.so.13) and 12.4 (/b/libnvrtc.so.13)"));
	}
}

static void test_code_parse(void **unused)
{
	struct ct_code codes[4];
	char name[32];
	size_t n = ct_code_parse_list("sm_90a,compute_80,bogus,sm_100f,sm_x", codes, 4);

	assert_int_equal(n, 3);
	assert_string_equal(ct_code_name(&codes[0], name, sizeof(name)), "sm_90a");
	assert_string_equal(ct_code_name(&codes[1], name, sizeof(name)), "compute_80");
	assert_true(codes[1].ptx);
	assert_string_equal(ct_code_name(&codes[2], name, sizeof(name)), "sm_100f");
	assert_int_equal(ct_code_parse_list("", codes, 4), 0);
	assert_int_equal(ct_code_parse_list("sm_80,sm_86,sm_90", codes, 2), 2);
}

static void test_findings_are_bounded(void **unused)
{
	const struct ct_code sm90[] = { { false, 90, 0, 0 } };
	struct ct_compat_findings f;

	ct_compat_init(&f);
	for (int i = 0; i < CT_COMPAT_MAX_FINDINGS + 5; i++)
		ct_compat_check_code(80, 13000, sm90, 1, NULL, &f);
	assert_int_equal(f.count, CT_COMPAT_MAX_FINDINGS);
	assert_int_equal(f.dropped, 5);
	assert_string_equal(ct_compat_severity_name(CT_COMPAT_ERROR), "error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release_table),
		cmocka_unit_test(test_version_parse),
		cmocka_unit_test(test_ptx_isa_versions),
		cmocka_unit_test(test_driver_too_old),
		cmocka_unit_test(test_driver_fits),
		cmocka_unit_test(test_tracer_cupti),
		cmocka_unit_test(test_device_unsupported),
		cmocka_unit_test(test_code_selection),
		cmocka_unit_test(test_ptx_too_new),
		cmocka_unit_test(test_library_identify),
		cmocka_unit_test(test_libraries),
		cmocka_unit_test(test_findings_are_bounded),
		cmocka_unit_test(test_code_parse),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
