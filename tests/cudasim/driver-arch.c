/* SPDX-License-Identifier: MIT */
/*
 * driver-arch.c - which device code of a module the simulated device can
 * run, as NVIDIA documents it:
 *
 *  - a cubin (SASS) for sm_XY runs on devices of the same major version X
 *    and a minor version of Y or more: "binary compatibility is guaranteed
 *    from one minor revision to the next one, but not from one minor
 *    revision to the previous one or across major revisions" (CUDA C++
 *    Programming Guide, "Binary Compatibility"). Arch-specific code
 *    (sm_90a) runs on that compute capability only; family-specific code
 *    (sm_100f) on the devices of its family, the same major version at or
 *    above its minor (Programming Guide, "Feature Availability");
 *  - PTX for compute_XY is JIT-compiled by the driver for any device of
 *    compute capability X.Y or more ("PTX Compatibility", "Just-in-Time
 *    Compilation"); compute_XYa PTX for X.Y only, compute_XYf PTX for its
 *    family only;
 *  - the driver prefers a compatible cubin and JIT-compiles PTX only when
 *    no cubin fits ("Application Compatibility": "the CUDA driver ...
 *    uses the cubin if any, else JIT-compiles the PTX");
 *  - the PTX JIT compiler is the driver's: PTX of an ISA version newer
 *    than the driver's CUDA version cannot be compiled,
 *    CUDA_ERROR_UNSUPPORTED_PTX_VERSION ("the provided PTX was compiled
 *    with an unsupported toolchain", cuda.h:2735-2739; CUDA Compatibility
 *    guide: PTX from a newer toolkit needs a newer driver);
 *  - nothing that runs: CUDA_ERROR_NO_BINARY_FOR_GPU ("no kernel image
 *    available that is suitable for the device", cuda.h:2660-2665).
 *
 * The PTX ISA version each CUDA release introduced is the PTX ISA
 * reference's release history ("PTX ISA Version" table of its release
 * notes).
 */
#include <stdio.h>
#include <string.h>
#include "driver-internal.h"

/* PTX ISA version (x 10) -> the CUDA version that introduced it. */
static const struct {
	int isa;
	int cuda;
} ptx_releases[] = {
	{ 30, 4010 },  { 31, 5000 },  { 32, 5050 },  { 40, 6000 },  { 41, 6050 },  { 42, 7000 },
	{ 43, 7050 },  { 50, 8000 },  { 60, 9000 },  { 61, 9010 },  { 62, 9020 },  { 63, 10000 },
	{ 64, 10010 }, { 65, 10020 }, { 70, 11000 }, { 71, 11010 }, { 72, 11020 }, { 73, 11030 },
	{ 74, 11040 }, { 75, 11050 }, { 76, 11060 }, { 77, 11070 }, { 78, 11080 }, { 80, 12000 },
	{ 81, 12010 }, { 82, 12020 }, { 83, 12030 }, { 84, 12040 }, { 85, 12050 }, { 86, 12070 },
	{ 87, 12080 }, { 88, 12090 }, { 90, 13000 },
};

HIDDEN int sim_ptx_isa_cuda_version(int isa)
{
	const size_t count = sizeof(ptx_releases) / sizeof(ptx_releases[0]);
	int found = 0;

	/* Past the table: ISA 9.N came with CUDA 13.N; a later major with a
	 * release newer than any driver here. */
	if (isa > ptx_releases[count - 1].isa)
		return isa / 10 == 9 ? 13000 + 10 * (isa % 10) : 99000;
	for (size_t i = 0; i < count && ptx_releases[i].isa <= isa; i++)
		found = ptx_releases[i].cuda;
	return found;
}

static bool code_fits(const struct sim_code *code, int device)
{
	int major = code->sm / 10, device_major = device / 10;

	if (code->variant == 'a')
		return code->sm == device;
	if (!code->ptx || code->variant == 'f')
		return major == device_major && code->sm <= device;
	return code->sm <= device;
}

HIDDEN CUresult sim_code_choose(struct sim_codes *codes)
{
	int device = sim_device_sm();
	int best = -1;

	codes->chosen = -1;
	/* A cubin first: the highest that runs here, arch-specific on a tie. */
	for (size_t i = 0; i < codes->count; i++) {
		const struct sim_code *c = &codes->codes[i];

		if (c->ptx || !code_fits(c, device))
			continue;
		if (best < 0 || c->sm > codes->codes[best].sm ||
		    (c->sm == codes->codes[best].sm && c->variant == 'a'))
			best = (int)i;
	}
	/* Else the PTX of the highest virtual architecture it can compile. */
	for (size_t i = 0; best < 0 && i < codes->count; i++) {
		const struct sim_code *c = &codes->codes[i];
		int j;

		if (!c->ptx || !code_fits(c, device))
			continue;
		for (j = (int)i + 1; j < (int)codes->count; j++)
			if (codes->codes[j].ptx && code_fits(&codes->codes[j], device) &&
			    codes->codes[j].sm > c->sm)
				break;
		if (j == (int)codes->count)
			best = (int)i;
	}
	if (best < 0)
		return CUDA_ERROR_NO_BINARY_FOR_GPU;
	codes->chosen = best;
	if (codes->codes[best].ptx && codes->codes[best].isa &&
	    sim_ptx_isa_cuda_version(codes->codes[best].isa) > sim_config()->driver_version)
		return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
	return CUDA_SUCCESS;
}

HIDDEN void sim_code_add(struct sim_codes *codes, bool ptx, int sm, char variant, int isa)
{
	struct sim_code *c;

	if (codes->count >= SIM_MAX_CODES)
		return;
	c = &codes->codes[codes->count++];
	c->ptx = ptx;
	c->sm = sm;
	c->variant = variant;
	c->isa = isa;
}

static int code_name(const struct sim_code *c, char *buf, size_t size)
{
	return snprintf(buf, size, "%s_%d%s", c->ptx ? "compute" : "sm", c->sm,
	                c->variant == 'a'   ? "a"
	                : c->variant == 'f' ? "f"
	                                    : "");
}

HIDDEN const char *sim_codes_describe(const struct sim_codes *codes, char *buf, size_t size)
{
	size_t used = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < codes->count && used + 1 < size; i++) {
		int n;

		if (i > 0)
			buf[used++] = ',';
		buf[used] = '\0';
		n = code_name(&codes->codes[i], buf + used, size - used);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
	if (!codes->count)
		snprintf(buf, size, "-");
	return buf;
}

HIDDEN const char *sim_code_chosen(const struct sim_codes *codes, char *buf, size_t size)
{
	if (codes->chosen < 0 || (size_t)codes->chosen >= codes->count) {
		snprintf(buf, size, "-");
		return buf;
	}
	code_name(&codes->codes[codes->chosen], buf, size);
	return buf;
}

HIDDEN void sim_codes_ledger_failure(const struct sim_codes *codes, CUresult result)
{
	char archs[256];
	int device = sim_device_sm();

	sim_ledger("op=module_load_failed archs=%s device=sm_%d driver=%d result=%s api=%s",
	           sim_codes_describe(codes, archs, sizeof(archs)), device,
	           sim_config()->driver_version, sim_result_name(result), sim_current_api_name());
}
