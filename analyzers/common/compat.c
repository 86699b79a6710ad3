/* SPDX-License-Identifier: MIT */
/*
 * compat.c - NVIDIA's compatibility rules (compat.h). The tables are
 * NVIDIA's, kept here and nowhere else in the tool:
 *
 *  - CUDA Toolkit Release Notes, "CUDA Toolkit and Corresponding Driver
 *    Versions": the Linux x86_64 driver each toolkit's GA release shipped
 *    with;
 *  - CUDA Toolkit Release Notes, "CUDA Toolkit Minimum Driver Versions
 *    for Minor Version Compatibility", and the CUDA Compatibility guide,
 *    "Minor Version Compatibility": CUDA 11.x needs a driver >= 450
 *    (450.80.02), 12.x >= 525, 13.x >= 580; before CUDA 11 each toolkit
 *    needed its own driver or later;
 *  - the release notes' notices of removed architectures: CUDA 11.0
 *    dropped compute capability 3.0, 12.0 everything below 5.0, 13.0
 *    everything below 7.5 (Maxwell, Pascal, Volta);
 *  - the PTX ISA reference's release history: which CUDA release
 *    introduced each PTX ISA version;
 *  - CUPTI's documentation, "CUPTI Compatibility and Requirements": CUPTI
 *    follows its toolkit's compatibility with the driver (backward,
 *    forward and minor version compatibility), and with a driver older
 *    than its toolkit's minimum every CUPTI call fails with
 *    CUPTI_ERROR_NOT_INITIALIZED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

static const struct ct_cuda_release releases[] = {
	{ 10000, "410.48", 410, 30 },    { 10010, "418.39", 418, 30 },
	{ 10020, "440.33", 440, 30 },    { 11000, "450.36.06", 450, 35 },
	{ 11010, "455.23", 450, 35 },    { 11020, "460.27.03", 450, 35 },
	{ 11030, "465.19.01", 450, 35 }, { 11040, "470.42.01", 450, 35 },
	{ 11050, "495.29.05", 450, 35 }, { 11060, "510.39.01", 450, 35 },
	{ 11070, "515.43.04", 450, 35 }, { 11080, "520.61.05", 450, 35 },
	{ 12000, "525.60.13", 525, 50 }, { 12010, "530.30.02", 525, 50 },
	{ 12020, "535.54.03", 525, 50 }, { 12030, "545.23.06", 525, 50 },
	{ 12040, "550.54.14", 525, 50 }, { 12050, "555.42.02", 525, 50 },
	{ 12060, "560.28.03", 525, 50 }, { 12080, "570.26", 525, 50 },
	{ 12090, "575.51.03", 525, 50 }, { 13000, "580.65.06", 580, 75 },
};
#define RELEASE_COUNT (sizeof(releases) / sizeof(releases[0]))

/* PTX ISA version (x 10) -> the CUDA version that introduced it. */
static const struct {
	int isa, cuda;
} ptx_releases[] = {
	{ 30, 4010 },  { 31, 5000 },  { 32, 5050 },  { 40, 6000 },  { 41, 6050 },  { 42, 7000 },
	{ 43, 7050 },  { 50, 8000 },  { 60, 9000 },  { 61, 9010 },  { 62, 9020 },  { 63, 10000 },
	{ 64, 10010 }, { 65, 10020 }, { 70, 11000 }, { 71, 11010 }, { 72, 11020 }, { 73, 11030 },
	{ 74, 11040 }, { 75, 11050 }, { 76, 11060 }, { 77, 11070 }, { 78, 11080 }, { 80, 12000 },
	{ 81, 12010 }, { 82, 12020 }, { 83, 12030 }, { 84, 12040 }, { 85, 12050 }, { 86, 12070 },
	{ 87, 12080 }, { 88, 12090 }, { 90, 13000 },
};
#define PTX_COUNT (sizeof(ptx_releases) / sizeof(ptx_releases[0]))

#define SRC_COMPAT  "NVIDIA's CUDA Compatibility guide, \"Minor Version Compatibility\""
#define SRC_DRIVERS "CUDA Toolkit Release Notes, \"CUDA Toolkit and Corresponding Driver Versions\""
#define SRC_CUPTI   "CUPTI's documentation, \"CUPTI Compatibility and Requirements\""
#define SRC_BINARY  "CUDA C++ Programming Guide, \"Binary Compatibility\""
#define SRC_PTX     "CUDA C++ Programming Guide, \"PTX Compatibility\""
#define SRC_APP     "CUDA C++ Programming Guide, \"Application Compatibility\""

const struct ct_cuda_release *ct_cuda_release_find(int cuda_version)
{
	for (size_t i = 0; i < RELEASE_COUNT; i++)
		if (releases[i].cuda_version == cuda_version)
			return &releases[i];
	return NULL;
}

/* The first release of cuda_version's major version, or NULL. */
static const struct ct_cuda_release *major_release(int cuda_version)
{
	for (size_t i = 0; i < RELEASE_COUNT; i++)
		if (releases[i].cuda_version / 1000 == cuda_version / 1000)
			return &releases[i];
	return NULL;
}

int ct_cuda_min_driver_branch(int cuda_version)
{
	const struct ct_cuda_release *exact = ct_cuda_release_find(cuda_version);
	const struct ct_cuda_release *first = major_release(cuda_version);

	/* Before CUDA 11 there was no minor version compatibility. */
	if (cuda_version < 11000)
		return exact ? atoi(exact->driver) : 0;
	return first ? first->family_min_branch : 0;
}

int ct_driver_branch_cuda_version(int branch)
{
	int found = 0;

	for (size_t i = 0; i < RELEASE_COUNT; i++)
		if (atoi(releases[i].driver) <= branch)
			found = releases[i].cuda_version;
	return found;
}

/* The CUPTI majors cudatrace's tracers are built against, newest first. */
static const int tracer_cupti_majors[] = { 13, 12 };
#define TRACER_CUPTI_COUNT (sizeof(tracer_cupti_majors) / sizeof(tracer_cupti_majors[0]))

int ct_compat_tracer_cupti(int driver_cuda, char *why, size_t size)
{
	int oldest = tracer_cupti_majors[TRACER_CUPTI_COUNT - 1];
	char v[16];

	if (driver_cuda <= 0) {
		snprintf(why, size, "the driver's CUDA version is unknown");
		return 0;
	}
	ct_cuda_version_text(driver_cuda, v, sizeof(v));
	for (size_t i = 0; i < TRACER_CUPTI_COUNT; i++) {
		int major = tracer_cupti_majors[i];

		if (driver_cuda < major * 1000)
			continue;
		if (i == 0)
			snprintf(why, size,
			         "the driver supports CUDA %s, and CUPTI %d runs on any driver of "
			         "CUDA %d.0 or later (R%d) (%s; %s)",
			         v, major, major, ct_cuda_min_driver_branch(major * 1000),
			         SRC_CUPTI, SRC_COMPAT);
		else
			snprintf(
			    why, size,
			    "the driver supports CUDA %s: CUPTI %d needs a driver of CUDA %d.0 "
			    "(R%d) or later, CUPTI %d runs on any driver of CUDA %d.0 or later "
			    "(R%d) (%s; %s)",
			    v, tracer_cupti_majors[0], tracer_cupti_majors[0],
			    ct_cuda_min_driver_branch(tracer_cupti_majors[0] * 1000), major, major,
			    ct_cuda_min_driver_branch(major * 1000), SRC_CUPTI, SRC_COMPAT);
		return major;
	}
	snprintf(why, size,
	         "the driver supports CUDA %s: cudatrace's oldest CUPTI, CUPTI %d, needs a driver "
	         "of CUDA %d.0 (R%d) or later (%s; %s)",
	         v, oldest, oldest, ct_cuda_min_driver_branch(oldest * 1000), SRC_CUPTI,
	         SRC_COMPAT);
	return 0;
}

int ct_ptx_isa_cuda_version(int isa)
{
	int found = 0;

	/* Past the table: PTX ISA 9.N came with CUDA 13.N. */
	if (isa > ptx_releases[PTX_COUNT - 1].isa)
		return isa / 10 == 9 ? 13000 + 10 * (isa % 10) : 99000;
	for (size_t i = 0; i < PTX_COUNT && ptx_releases[i].isa <= isa; i++)
		found = ptx_releases[i].cuda;
	return found;
}

const char *ct_cuda_version_text(int cuda_version, char *buf, size_t size)
{
	snprintf(buf, size, "%d.%d", cuda_version / 1000, cuda_version % 1000 / 10);
	return buf;
}

int ct_cuda_version_parse(const char *text)
{
	char *end;
	long major = strtol(text, &end, 10), minor = 0;

	if (end == text || major <= 0 || major > 1000)
		return 0;
	if (*end == '.') {
		minor = strtol(end + 1, &end, 10);
		if (minor < 0 || minor > 99)
			minor = 0;
	}
	return (int)(major * 1000 + minor * 10);
}

/* ------------------------------------------------------------ findings */

void ct_compat_init(struct ct_compat_findings *findings)
{
	memset(findings, 0, sizeof(*findings));
}

int ct_compat_worst(const struct ct_compat_findings *findings)
{
	int worst = -1;

	for (size_t i = 0; i < findings->count; i++)
		if ((int)findings->items[i].severity > worst)
			worst = (int)findings->items[i].severity;
	return worst;
}

const char *ct_compat_severity_name(enum ct_compat_severity severity)
{
	switch (severity) {
	case CT_COMPAT_NOTE:
		return "note";
	case CT_COMPAT_WARNING:
		return "warning";
	case CT_COMPAT_ERROR:
		return "error";
	}
	return "?";
}

/* A new finding, or NULL when the list is full (counted as dropped). */
static struct ct_compat_finding *finding_add(struct ct_compat_findings *out,
                                             enum ct_compat_severity severity, const char *id)
{
	struct ct_compat_finding *f;

	if (out->count >= CT_COMPAT_MAX_FINDINGS) {
		out->dropped++;
		return NULL;
	}
	f = &out->items[out->count++];
	memset(f, 0, sizeof(*f));
	f->severity = severity;
	f->id = id;
	return f;
}

/* ------------------------------------------------------------ driver */

void ct_compat_check_driver(int driver_cuda, int driver_branch, int runtime_cuda,
                            struct ct_compat_findings *out)
{
	const struct ct_cuda_release *own = ct_cuda_release_find(runtime_cuda);
	int need = ct_cuda_min_driver_branch(runtime_cuda);
	char drv[16], rt[16], branch[48] = "";
	struct ct_compat_finding *f;

	if (driver_cuda <= 0 || runtime_cuda <= 0 || driver_cuda >= runtime_cuda)
		return;
	ct_cuda_version_text(driver_cuda, drv, sizeof(drv));
	ct_cuda_version_text(runtime_cuda, rt, sizeof(rt));
	if (driver_branch > 0)
		snprintf(branch, sizeof(branch), " (driver %d)", driver_branch);
	if (runtime_cuda >= 11000 && driver_cuda / 1000 == runtime_cuda / 1000) {
		/* Same major family, older minor: works, with limits. */
		f = finding_add(out, CT_COMPAT_NOTE, "driver-older-minor");
		if (!f)
			return;
		snprintf(
		    f->what, sizeof(f->what),
		    "the driver supports CUDA %s%s; this program's runtime is %s: it runs under "
		    "minor version compatibility, without the features of CUDA %s the driver "
		    "lacks, and PTX built by CUDA %s cannot be JIT-compiled",
		    drv, branch, rt, rt, rt);
		snprintf(f->rule, sizeof(f->rule),
		         "a runtime of a major family runs on any driver of that family (%s); "
		         "calls that need a newer driver return cudaErrorCallRequiresNewerDriver, "
		         "and PTX newer than the driver is CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
		         SRC_COMPAT);
		snprintf(f->action, sizeof(f->action),
		         "to use all of CUDA %s, update the driver to %s or newer (%s)", rt,
		         own ? own->driver : "the one of that toolkit", SRC_DRIVERS);
		return;
	}
	f = finding_add(out, CT_COMPAT_ERROR, "driver-too-old");
	if (!f)
		return;
	snprintf(f->what, sizeof(f->what),
	         "the driver supports CUDA %s%s; this program's runtime is %s, which needs driver "
	         "%d or newer: every CUDA runtime call fails with cudaErrorInsufficientDriver (35)",
	         drv, branch, rt, need);
	if (runtime_cuda >= 11000)
		snprintf(
		    f->rule, sizeof(f->rule),
		    "a CUDA %d.x runtime needs a driver of the %d.x family, >= %d, or a later one "
		    "(%s; %s)",
		    runtime_cuda / 1000, runtime_cuda / 1000, need, SRC_COMPAT, SRC_DRIVERS);
	else
		snprintf(f->rule, sizeof(f->rule),
		         "before CUDA 11 a runtime needs the driver of its own toolkit or a later "
		         "one (%s)",
		         SRC_DRIVERS);
	snprintf(f->action, sizeof(f->action),
	         "install NVIDIA driver %d or newer (%s ships with CUDA %s); on a data-center GPU "
	         "the cuda-compat-%d-%d forward compatibility package gives a newer user-mode "
	         "driver without a new kernel module (CUDA Compatibility, \"Forward "
	         "Compatibility\"); or run a build of the program for CUDA %s",
	         need, own ? own->driver : "the driver", rt, runtime_cuda / 1000,
	         runtime_cuda % 1000 / 10, drv);
}

void ct_compat_check_device(int device_cc, int toolkit_cuda, struct ct_compat_findings *out)
{
	const struct ct_cuda_release *first = major_release(toolkit_cuda);
	struct ct_compat_finding *f;
	char tk[16];

	if (device_cc <= 0 || !first || device_cc >= first->min_compute)
		return;
	f = finding_add(out, CT_COMPAT_ERROR, "device-unsupported");
	if (!f)
		return;
	ct_cuda_version_text(toolkit_cuda, tk, sizeof(tk));
	snprintf(f->what, sizeof(f->what),
	         "the device is compute capability %d.%d; CUDA %s builds code for %d.%d and later "
	         "only",
	         device_cc / 10, device_cc % 10, tk, first->min_compute / 10,
	         first->min_compute % 10);
	snprintf(f->rule, sizeof(f->rule),
	         "CUDA %d.0 removed support for older architectures from its compiler and "
	         "libraries (CUDA Toolkit Release Notes, deprecated and dropped features)",
	         toolkit_cuda / 1000);
	snprintf(f->action, sizeof(f->action),
	         "use a CUDA toolkit (and libraries) of a release that still supports compute "
	         "capability %d.%d",
	         device_cc / 10, device_cc % 10);
}

/* ------------------------------------------------------------ device code */

const char *ct_code_name(const struct ct_code *code, char *buf, size_t size)
{
	snprintf(buf, size, "%s_%d%s", code->ptx ? "compute" : "sm", code->arch,
	         code->variant == 'a'   ? "a"
	         : code->variant == 'f' ? "f"
	                                : "");
	return buf;
}

/* One name, "sm_90a" or "compute_80", of length n. */
static bool code_parse(const char *name, size_t n, struct ct_code *code)
{
	char text[32], *end;
	long arch;

	if (n >= sizeof(text))
		return false;
	memcpy(text, name, n);
	text[n] = '\0';
	memset(code, 0, sizeof(*code));
	code->ptx = !strncmp(text, "compute_", 8);
	if (code->ptx)
		end = text + 8;
	else if (!strncmp(text, "sm_", 3))
		end = text + 3;
	else
		return false;
	arch = strtol(end, &end, 10);
	if (arch <= 0 || arch > 10000 || (*end && strcmp(end, "a") && strcmp(end, "f")))
		return false;
	code->arch = (int)arch;
	code->variant = *end;
	return true;
}

size_t ct_code_parse_list(const char *list, struct ct_code *codes, size_t max)
{
	size_t count = 0;

	while (list && *list && count < max) {
		size_t n = strcspn(list, ",");

		if (code_parse(list, n, &codes[count]))
			count++;
		list += n + (list[n] == ',');
	}
	return count;
}

static bool code_fits(const struct ct_code *code, int device_cc)
{
	if (code->variant == 'a')
		return code->arch == device_cc;
	if (!code->ptx || code->variant == 'f')
		return code->arch / 10 == device_cc / 10 && code->arch <= device_cc;
	return code->arch <= device_cc;
}

static int choose(int device_cc, const struct ct_code *codes, size_t count)
{
	int best = -1;

	for (size_t i = 0; i < count; i++) {
		if (codes[i].ptx || !code_fits(&codes[i], device_cc))
			continue;
		if (best < 0 || codes[i].arch > codes[best].arch)
			best = (int)i;
	}
	if (best >= 0)
		return best;
	for (size_t i = 0; i < count; i++) {
		if (!codes[i].ptx || !code_fits(&codes[i], device_cc))
			continue;
		if (best < 0 || codes[i].arch > codes[best].arch)
			best = (int)i;
	}
	return best;
}

/* "sm_90, compute_90" into buf. */
static const char *codes_list(const struct ct_code *codes, size_t count, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < count && used + 1 < size; i++) {
		char name[32];
		int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
		                 ct_code_name(&codes[i], name, sizeof(name)));

		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
	return buf;
}

int ct_compat_check_code(int device_cc, int driver_cuda, const struct ct_code *codes, size_t count,
                         const char *module, struct ct_compat_findings *out)
{
	char list[256], chosen_name[32], of[300] = "", drv[16], isa_cuda[16];
	int chosen = choose(device_cc, codes, count);
	struct ct_compat_finding *f;
	int major = device_cc / 10, minor = device_cc % 10;

	if (module && *module)
		snprintf(of, sizeof(of), "%s: ", module);
	codes_list(codes, count, list, sizeof(list));
	if (chosen < 0) {
		bool has_ptx = false;

		for (size_t i = 0; i < count; i++)
			has_ptx |= codes[i].ptx;
		f = finding_add(out, CT_COMPAT_ERROR, "no-code-for-device");
		if (!f)
			return -1;
		snprintf(f->what, sizeof(f->what),
		         "%scompiled for %s only; the device is compute capability %d.%d: kernel "
		         "launches fail with \"no kernel image is available for execution on the "
		         "device\" (cudaErrorNoKernelImageForDevice, 209)",
		         of, count ? list : "no architecture", major, minor);
		snprintf(
		    f->rule, sizeof(f->rule),
		    "a cubin runs on devices of its major version at or above its minor, "
		    "arch-specific code (sm_XYa) on X.Y only (%s); PTX is JIT-compiled for its "
		    "virtual architecture and later ones (%s)%s",
		    SRC_BINARY, SRC_PTX,
		    has_ptx ? "; this module's PTX is for a later architecture" : "");
		snprintf(f->action, sizeof(f->action),
		         "rebuild with -gencode arch=compute_%d,code=sm_%d for this device, or "
		         "include PTX of an architecture at or below it (-gencode "
		         "arch=compute_%d,code=compute_%d) so that the driver can JIT-compile it",
		         device_cc, device_cc, device_cc, device_cc);
		return -1;
	}
	ct_code_name(&codes[chosen], chosen_name, sizeof(chosen_name));
	if (!codes[chosen].ptx)
		return chosen;
	if (codes[chosen].isa > 0 && driver_cuda > 0 &&
	    ct_ptx_isa_cuda_version(codes[chosen].isa) > driver_cuda) {
		int needs = ct_ptx_isa_cuda_version(codes[chosen].isa);
		const struct ct_cuda_release *rel = ct_cuda_release_find(needs);

		f = finding_add(out, CT_COMPAT_ERROR, "ptx-too-new");
		if (!f)
			return chosen;
		ct_cuda_version_text(driver_cuda, drv, sizeof(drv));
		ct_cuda_version_text(needs, isa_cuda, sizeof(isa_cuda));
		snprintf(f->what, sizeof(f->what),
		         "%sno cubin for compute capability %d.%d (it has %s), and its %s PTX is "
		         "PTX ISA %d.%d, which came with CUDA %s; the driver supports CUDA %s and "
		         "cannot JIT-compile it (CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222)",
		         of, major, minor, list, chosen_name, codes[chosen].isa / 10,
		         codes[chosen].isa % 10, isa_cuda, drv);
		snprintf(f->rule, sizeof(f->rule),
		         "the driver's JIT compiler reads the PTX ISA versions of its own CUDA "
		         "version and earlier (%s; PTX ISA reference, release history; cuda.h: "
		         "\"the provided PTX was compiled with an unsupported toolchain\")",
		         SRC_COMPAT);
		snprintf(
		    f->action, sizeof(f->action),
		    "update the driver to %s or newer, or rebuild with a cubin for this device "
		    "(-gencode arch=compute_%d,code=sm_%d) or with a toolkit no newer than CUDA "
		    "%s",
		    rel ? rel->driver : "one of that CUDA version", device_cc, device_cc, drv);
		return chosen;
	}
	f = finding_add(out, CT_COMPAT_NOTE, "ptx-jit");
	if (!f)
		return chosen;
	snprintf(f->what, sizeof(f->what),
	         "%sno cubin for compute capability %d.%d (it has %s): its %s PTX will be "
	         "JIT-compiled at load, a slower first launch",
	         of, major, minor, list, chosen_name);
	snprintf(f->rule, sizeof(f->rule),
	         "the driver runs a compatible cubin when there is one and JIT-compiles PTX "
	         "otherwise, caching the result (%s; %s)",
	         SRC_APP, SRC_PTX);
	snprintf(f->action, sizeof(f->action),
	         "add a cubin for this device (-gencode arch=compute_%d,code=sm_%d); keep the JIT "
	         "cache (CUDA_CACHE_PATH, CUDA_CACHE_MAXSIZE) between runs",
	         device_cc, device_cc);
	return chosen;
}

/* ------------------------------------------------------------ libraries */

/* NVIDIA's libraries, by the name before ".so". */
static const char *const cuda_libraries[] = {
	"libcuda",   "libcudart",   "libcublas",    "libcublasLt", "libcufft",
	"libcurand", "libcusparse", "libcusolver",  "libnvrtc",    "libnvJitLink",
	"libcupti",  "libnccl",     "libnvidia-ml", "libcudnn",    "libnvToolsExt",
};

/* Versioned like the toolkit: their soname major is the CUDA major
 * (CUDA Toolkit Release Notes, "CUDA Toolkit Major Component Versions"). */
static const char *const toolkit_versioned[] = {
	"libcudart", "libcublas", "libcublasLt", "libnvrtc", "libnvJitLink", "libcupti",
};

static bool in_list(const char *name, const char *const *list, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

bool ct_library_identify(const char *path, char *name, size_t name_size, char *version,
                         size_t version_size)
{
	const char *base = strrchr(path, '/');
	const char *so;
	size_t length;

	base = base ? base + 1 : path;
	so = strstr(base, ".so");
	if (!so || (so[3] != '\0' && so[3] != '.'))
		return false;
	length = (size_t)(so - base);
	if (length + 1 > name_size)
		return false;
	memcpy(name, base, length);
	name[length] = '\0';
	/* libcudnn_ops, libcudnn_cnn...: cuDNN's sub-libraries count as cuDNN. */
	if (!strncmp(name, "libcudnn", 8))
		name[8] = '\0';
	if (!in_list(name, cuda_libraries, sizeof(cuda_libraries) / sizeof(cuda_libraries[0])))
		return false;
	snprintf(version, version_size, "%s", so[3] == '.' ? so + 4 : "");
	return true;
}

/* Whether path lies under directory dir. */
static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return n > 0 && !strncmp(path, dir, n) && (path[n] == '/' || dir[n - 1] == '/');
}

/* The directory of path (without the last '/'), into buf. */
static const char *dir_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (n + 1 > size)
		n = size - 1;
	memcpy(buf, path, n);
	buf[n] = '\0';
	return buf;
}

/* Versions differ where both are known and one is not a prefix of the
 * other ("12" and "12.4.5" are the same library seen two ways). */
static bool versions_differ(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;

	if (!la || !lb)
		return false;
	if (strncmp(a, b, n))
		return true;
	return !(la == lb || (la > lb ? a[n] == '.' : b[n] == '.'));
}

static void check_stub(const char *path, const char *name, struct ct_compat_findings *out)
{
	struct ct_compat_finding *f;

	if (strcmp(name, "libcuda") || !strstr(path, "/stubs/"))
		return;
	f = finding_add(out, CT_COMPAT_ERROR, "stub-driver");
	if (!f)
		return;
	snprintf(f->what, sizeof(f->what),
	         "libcuda is the toolkit's stub (%s), a library for linking that has no driver in "
	         "it: every CUDA call fails, cudaErrorStubLibrary (34)",
	         path);
	snprintf(
	    f->rule, sizeof(f->rule),
	    "\"applications that run with the stub rather than a real driver loaded will "
	    "result in CUDA API returning this error\" (driver_types.h, cudaErrorStubLibrary)");
	snprintf(f->action, sizeof(f->action),
	         "take the toolkit's lib64/stubs directory out of LD_LIBRARY_PATH (it is for the "
	         "linker, -L): libcuda.so.1 must be the installed driver's");
}

static void check_location(const char *path, const char *name, const char *const *expected,
                           size_t expected_count, struct ct_compat_findings *out)
{
	struct ct_compat_finding *f;
	char dir[256], where[CT_COMPAT_TEXT / 2] = "";
	size_t used = 0;

	/* The driver and NVML come with the driver, wherever it put them. */
	if (!expected_count || !strcmp(name, "libcuda") || !strcmp(name, "libnvidia-ml"))
		return;
	for (size_t i = 0; i < expected_count; i++)
		if (expected[i] && path_under(path, expected[i]))
			return;
	for (size_t i = 0; i < expected_count && used + 1 < sizeof(where); i++) {
		int n;

		if (!expected[i])
			continue;
		n = snprintf(where + used, sizeof(where) - used, "%s%s", used ? ", " : "",
		             expected[i]);
		if (n < 0 || (size_t)n >= sizeof(where) - used)
			break;
		used += (size_t)n;
	}
	/*
	 * Where a library lies is context, not a problem: pip's wheels, a
	 * conda environment and the simulated GPU all keep CUDA's libraries
	 * outside the toolkit. A note, beside the version checks that say
	 * when a copy is at odds (library-major-mismatch, duplicate-library).
	 */
	f = finding_add(out, CT_COMPAT_NOTE, "unexpected-location");
	if (!f)
		return;
	snprintf(f->what, sizeof(f->what), "%s comes from %s, outside the expected places (%s)",
	         name, dir_of(path, dir, sizeof(dir)), where);
	snprintf(f->rule, sizeof(f->rule),
	         "a program needs the versions of the libraries it was built with: \"if the "
	         "application relies on dynamic linking for libraries, then the system should "
	         "have the right version of such libraries as well\" (CUDA Compatibility); the "
	         "dynamic linker takes the first match on LD_LIBRARY_PATH, RUNPATH and the "
	         "ld.so cache (ld.so(8))");
	snprintf(f->action, sizeof(f->action),
	         "check LD_LIBRARY_PATH and the program's RUNPATH: remove the directory that "
	         "shadows the intended copy, or point them at the toolkit (CUDA_HOME) or the "
	         "Python environment that should provide %s",
	         name);
}

static void check_major(const char *path, const char *name, const char *version, int runtime_cuda,
                        struct ct_compat_findings *out)
{
	struct ct_compat_finding *f;
	int major;

	if (runtime_cuda <= 0 || !*version ||
	    !in_list(name, toolkit_versioned,
	             sizeof(toolkit_versioned) / sizeof(toolkit_versioned[0])))
		return;
	major = atoi(version);
	if (major <= 0 || major == runtime_cuda / 1000)
		return;
	f = finding_add(out, CT_COMPAT_WARNING, "library-major-mismatch");
	if (!f)
		return;
	snprintf(f->what, sizeof(f->what),
	         "%s %s (%s) belongs to CUDA %d; the runtime is CUDA %d.%d", name, version, path,
	         major, runtime_cuda / 1000, runtime_cuda % 1000 / 10);
	snprintf(f->rule, sizeof(f->rule),
	         "the toolkit's libraries are built for the runtime of their own major version "
	         "and carry it in their soname (CUDA Toolkit Release Notes, \"CUDA Toolkit Major "
	         "Component Versions\")");
	snprintf(f->action, sizeof(f->action),
	         "install %s of CUDA %d (from the same toolkit or the same set of nvidia-*-cu%d "
	         "Python packages as the runtime)",
	         name, runtime_cuda / 1000, runtime_cuda / 1000);
}

/* The versions two copies of a library are compared by: the ones they
 * report when both do (a copy renamed keeps its version), else those of
 * their file names. */
static void compared_versions(const struct ct_library *a, const char *a_file,
                              const struct ct_library *b, const char *b_file, const char **va,
                              const char **vb)
{
	bool reported = a->version && *a->version && b->version && *b->version;

	*va = reported ? a->version : a_file;
	*vb = reported ? b->version : b_file;
}

static void check_duplicate(const struct ct_library *a, const char *name, const char *a_file,
                            const struct ct_library *b, const char *b_file,
                            struct ct_compat_findings *out)
{
	struct ct_compat_finding *f;
	const char *va, *vb;

	compared_versions(a, a_file, b, b_file, &va, &vb);
	f = finding_add(out, CT_COMPAT_WARNING, "duplicate-library");
	if (!f)
		return;
	snprintf(f->what, sizeof(f->what), "two copies of %s in one process: %s (%s) and %s (%s)",
	         name, va, a->path, vb, b->path);
	snprintf(f->rule, sizeof(f->rule),
	         "each copy keeps its own state, and a symbol resolves to whichever "
	         "copy the dynamic linker found first (ld.so(8)); NVIDIA supports a "
	         "library only with the runtime and libraries of its own release (CUDA "
	         "Compatibility)");
	snprintf(f->action, sizeof(f->action),
	         "make every part of the program use one %s: one toolkit, or one set "
	         "of nvidia-* Python packages, on LD_LIBRARY_PATH",
	         name);
}

void ct_compat_check_libraries(const struct ct_library *libs, size_t count,
                               const char *const *expected, size_t expected_count, int runtime_cuda,
                               struct ct_compat_findings *out)
{
	for (size_t i = 0; i < count; i++) {
		char name[64], version[64], other_name[64], other_version[64];
		bool reported = false;

		if (!libs[i].path || !ct_library_identify(libs[i].path, name, sizeof(name), version,
		                                          sizeof(version)))
			continue;
		check_stub(libs[i].path, name, out);
		check_location(libs[i].path, name, expected, expected_count, out);
		check_major(libs[i].path, name, version, runtime_cuda, out);
		/* Copies of one library: once, from the first of them. */
		for (size_t k = 0; k < i && !reported; k++)
			reported = libs[k].path &&
			           ct_library_identify(libs[k].path, other_name, sizeof(other_name),
			                               other_version, sizeof(other_version)) &&
			           !strcmp(name, other_name);
		for (size_t j = i + 1; j < count && !reported; j++) {
			const char *va, *vb;

			if (!libs[j].path ||
			    !ct_library_identify(libs[j].path, other_name, sizeof(other_name),
			                         other_version, sizeof(other_version)) ||
			    strcmp(name, other_name))
				continue;
			compared_versions(&libs[i], version, &libs[j], other_version, &va, &vb);
			if (!versions_differ(va, vb))
				continue;
			reported = true;
			check_duplicate(&libs[i], name, version, &libs[j], other_version, out);
		}
	}
}
