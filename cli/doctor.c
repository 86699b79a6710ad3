/* SPDX-License-Identifier: MIT */
/*
 * doctor.c - `cudatrace doctor`: what this machine offers CUDA and
 * cudatrace, with no program to run. The driver (libcuda.so.1 as the
 * dynamic linker finds it, cuDriverGetVersion, which needs no cuInit),
 * NVML (the driver's version string), each device (cuInit and device
 * queries: no context is created), the runtime the dynamic linker finds
 * and whether it initialises, the toolkit (CUDA_HOME, CUDA_PATH,
 * /usr/local/cuda), LTTng (the session daemon, the consumer, the run
 * directory, /dev/shm), and the tracing library (found as `cudatrace
 * record` finds it, loaded in a child process with the CUPTI it brings,
 * and its InitializeInjection). Then the findings of NVIDIA's
 * compatibility rules (analyzers/common/compat.c) on what was found.
 *
 * The CUDA libraries are loaded with dlopen and called through their C
 * ABI (CUresult, cudaError_t and nvmlReturn_t are ints), so that the
 * command needs no CUDA headers to build and works where CUDA is absent.
 *
 * Exit status: 0 when nothing would stop CUDA or tracing from working
 * (warnings and notes allowed), 1 otherwise, 2 for a usage error.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/compat.h"
#include "cuda-places.h"
#include "diag.h"
#include "exec-path.h"
#include "lib-probe.h"
#include "sessiond.h"
#include "tracer-lib.h"
#include "verbs.h"

#define TEXT        512
#define MAX_ITEMS   80
#define MAX_DEVICES 16
#define MAX_LIBS    8

/* cuda.h's CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR. */
#define CU_ATTR_CC_MAJOR 75
#define CU_ATTR_CC_MINOR 76

enum state { STATE_OK, STATE_WARN, STATE_FAIL };

struct item {
	char name[32];
	enum state state;
	char detail[TEXT];
	char fix[TEXT];
};

struct device {
	char name[256];
	int major, minor;
	unsigned long long memory;
};

struct doctor {
	struct item items[MAX_ITEMS];
	size_t item_count;
	struct ct_compat_findings findings;
	/* What was found, for the rules and the JSON. */
	char driver_path[PATH_MAX];
	int driver_cuda;
	char driver_version[96];
	int driver_branch;
	struct device devices[MAX_DEVICES];
	int device_count;
	char runtime_path[PATH_MAX];
	int runtime_cuda;
	char runtime_init[64];
	char toolkit_dir[PATH_MAX];
	int toolkit_cuda;
	char nvml_path[PATH_MAX];
	char cupti_path[PATH_MAX];
	unsigned int cupti_version;
	char tracer_path[PATH_MAX];
	int tracer_cupti; /* the CUPTI of the tracer the driver gets: 13, 12, 0 for none */
	char tracer_why[TEXT];
};

/* src into dst, cut to fit. */
static void copy_text(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static const char *state_name(enum state s)
{
	return s == STATE_OK ? "ok" : s == STATE_WARN ? "warn" : "fail";
}

static struct item *__attribute__((format(printf, 5, 6)))
item_add(struct doctor *d, const char *name, enum state state, const char *fix, const char *fmt,
         ...)
{
	struct item *it;
	va_list ap;

	if (d->item_count >= MAX_ITEMS)
		return NULL;
	it = &d->items[d->item_count++];
	copy_text(it->name, sizeof(it->name), name);
	it->state = state;
	va_start(ap, fmt);
	vsnprintf(it->detail, sizeof(it->detail), fmt, ap);
	va_end(ap);
	snprintf(it->fix, sizeof(it->fix), "%s", fix ? fix : "");
	return it;
}

/* "12.2" for 12020. */
static const char *cuda_text(int version, char *buf, size_t size)
{
	return ct_cuda_version_text(version, buf, size);
}

/* ------------------------------------------------------------ driver */

typedef int (*cu_int_fn)(int *);
typedef int (*cu_init_fn)(unsigned int);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_name_fn)(char *, int, int);
typedef int (*cu_attr_fn)(int *, int, int);
typedef int (*cu_mem_fn)(size_t *, int);
typedef int (*cu_err_fn)(int, const char **);

static const char *cu_error(void *cuda, int result, char *buf, size_t size)
{
	cu_err_fn name = (cu_err_fn)dlsym(cuda, "cuGetErrorName");
	const char *text = NULL;

	if (name && name(result, &text) == 0 && text)
		snprintf(buf, size, "%s (%d)", text, result);
	else
		snprintf(buf, size, "error %d", result);
	return buf;
}

static void check_devices(struct doctor *d, void *cuda)
{
	cu_init_fn init = (cu_init_fn)dlsym(cuda, "cuInit");
	cu_int_fn count = (cu_int_fn)dlsym(cuda, "cuDeviceGetCount");
	cu_get_fn get = (cu_get_fn)dlsym(cuda, "cuDeviceGet");
	cu_name_fn name = (cu_name_fn)dlsym(cuda, "cuDeviceGetName");
	cu_attr_fn attr = (cu_attr_fn)dlsym(cuda, "cuDeviceGetAttribute");
	cu_mem_fn mem = (cu_mem_fn)dlsym(cuda, "cuDeviceTotalMem_v2");
	char err[96];
	int r, n = 0;

	if (!init || !count || !get || !name || !attr || !mem) {
		item_add(d, "devices", STATE_FAIL, "reinstall the NVIDIA driver",
		         "%s lacks the device queries of the driver API", d->driver_path);
		return;
	}
	/* No context is made: a device in exclusive mode stays free. */
	r = init(0);
	if (r != 0) {
		item_add(d, "devices", STATE_FAIL,
		         "check that the NVIDIA kernel module is loaded (nvidia-smi) and that this "
		         "user may open /dev/nvidia*",
		         "cuInit fails: %s", cu_error(cuda, r, err, sizeof(err)));
		return;
	}
	r = count(&n);
	if (r != 0 || n <= 0) {
		item_add(d, "devices", STATE_FAIL,
		         "check CUDA_VISIBLE_DEVICES and that the GPU is visible (nvidia-smi -L)",
		         "no CUDA device (%s)",
		         r ? cu_error(cuda, r, err, sizeof(err)) : "0 devices");
		return;
	}
	for (int i = 0; i < n && d->device_count < MAX_DEVICES; i++) {
		struct device *dev = &d->devices[d->device_count];
		char label[32];
		size_t bytes = 0;
		int handle = 0;

		snprintf(label, sizeof(label), "device %d", i);
		if (get(&handle, i) != 0 || name(dev->name, (int)sizeof(dev->name), handle) != 0 ||
		    attr(&dev->major, CU_ATTR_CC_MAJOR, handle) != 0 ||
		    attr(&dev->minor, CU_ATTR_CC_MINOR, handle) != 0 || mem(&bytes, handle) != 0) {
			item_add(d, label, STATE_FAIL, "reinstall the NVIDIA driver",
			         "the driver cannot describe device %d", i);
			continue;
		}
		dev->memory = bytes;
		d->device_count++;
		item_add(d, label, STATE_OK, NULL, "%s, compute capability %d.%d, %.1f GiB",
		         dev->name, dev->major, dev->minor,
		         (double)bytes / (1024.0 * 1024.0 * 1024.0));
	}
	/* The findings need one device of each kind, not all of a big node. */
	if (n > MAX_DEVICES)
		item_add(d, "devices", STATE_OK, NULL, "%d more not shown", n - MAX_DEVICES);
}

static void check_driver(struct doctor *d)
{
	const char *names[] = { "libcuda.so.1", NULL }, *which;
	void *cuda = lib_probe_open(names, &which, d->driver_path, sizeof(d->driver_path));
	char v[16], err[96];
	int r;

	if (!cuda) {
		item_add(d, "driver", STATE_FAIL,
		         "install the NVIDIA driver, or put the directory of its libcuda.so.1 on "
		         "LD_LIBRARY_PATH",
		         "libcuda.so.1 is not found: %s", dlerror());
		return;
	}
	r = lib_probe_driver_version(cuda, &d->driver_cuda);
	if (r != 0) {
		item_add(d, "driver", STATE_FAIL, "reinstall the NVIDIA driver",
		         "%s: cuDriverGetVersion fails (%s)", d->driver_path,
		         r != -1 ? cu_error(cuda, r, err, sizeof(err)) : "not exported");
		d->driver_cuda = 0;
		return;
	}
	item_add(d, "driver", strstr(d->driver_path, "/stubs/") ? STATE_FAIL : STATE_OK,
	         strstr(d->driver_path, "/stubs/") ? "take the toolkit's lib64/stubs out of "
	                                             "LD_LIBRARY_PATH"
	                                           : NULL,
	         "%s: CUDA %s", d->driver_path, cuda_text(d->driver_cuda, v, sizeof(v)));
	check_devices(d, cuda);
}

/* ------------------------------------------------------------ NVML */

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_text_fn)(char *, unsigned int);
typedef int (*nvml_int_fn)(int *);

static void check_nvml(struct doctor *d)
{
	const char *names[] = { "libnvidia-ml.so.1", NULL }, *which;
	void *nvml = lib_probe_open(names, &which, d->nvml_path, sizeof(d->nvml_path));
	nvml_void_fn init, shutdown;
	nvml_text_fn version;
	int r;

	if (!nvml) {
		item_add(
		    d, "NVML", STATE_WARN,
		    "install the driver's NVML (Debian: libnvidia-ml1): without it traces lack "
		    "the memory other processes hold",
		    "libnvidia-ml.so.1 is not found");
		return;
	}
	init = (nvml_void_fn)dlsym(nvml, "nvmlInit_v2");
	shutdown = (nvml_void_fn)dlsym(nvml, "nvmlShutdown");
	version = (nvml_text_fn)dlsym(nvml, "nvmlSystemGetDriverVersion");
	if (!init || !version || (r = init()) != 0) {
		item_add(d, "NVML", STATE_WARN, "check the driver installation (nvidia-smi)",
		         "%s does not initialise", d->nvml_path);
		return;
	}
	if (version(d->driver_version, sizeof(d->driver_version)) == 0)
		d->driver_branch = atoi(d->driver_version);
	item_add(d, "NVML", STATE_OK, NULL, "%s: driver %s", d->nvml_path,
	         d->driver_version[0] ? d->driver_version : "of unknown version");
	if (shutdown)
		shutdown();
}

/* ------------------------------------------------------------ runtime, toolkit */

typedef int (*rt_int_fn)(int *);
typedef const char *(*rt_name_fn)(int);

static void check_runtime(struct doctor *d)
{
	static const char *const names[] = { "libcudart.so.13", "libcudart.so.12",
		                             "libcudart.so.11.0", NULL };
	const char *which = NULL;
	void *rt = lib_probe_open(names, &which, d->runtime_path, sizeof(d->runtime_path));
	rt_int_fn version, count;
	rt_name_fn name;
	char v[16];
	int n = 0, r;

	if (!rt) {
		item_add(d, "runtime", STATE_WARN,
		         "nothing to do unless a program needs it from the library path: programs "
		         "often bring their own (Python wheels, static linking)",
		         "no libcudart on the library path");
		return;
	}
	version = (rt_int_fn)dlsym(rt, "cudaRuntimeGetVersion");
	count = (rt_int_fn)dlsym(rt, "cudaGetDeviceCount");
	name = (rt_name_fn)dlsym(rt, "cudaGetErrorName");
	if (!version || version(&d->runtime_cuda) != 0 || !count || !name) {
		item_add(d, "runtime", STATE_FAIL, "reinstall the CUDA runtime",
		         "%s does not say its version", d->runtime_path);
		d->runtime_cuda = 0;
		return;
	}
	/* The runtime's own initialisation, as a program's first call. */
	r = count(&n);
	snprintf(d->runtime_init, sizeof(d->runtime_init), "%s", name(r));
	if (r != 0)
		item_add(d, "runtime", STATE_FAIL, "see the findings below",
		         "%s: CUDA %s, does not initialise: %s (%d)", d->runtime_path,
		         cuda_text(d->runtime_cuda, v, sizeof(v)), d->runtime_init, r);
	else
		item_add(d, "runtime", STATE_OK, NULL, "%s: CUDA %s, %d device%s", d->runtime_path,
		         cuda_text(d->runtime_cuda, v, sizeof(v)), n, n == 1 ? "" : "s");
}

/* CUDA_VERSION of DIR/include/cuda.h, 0 if none. */
static int toolkit_version(const char *dir)
{
	char path[PATH_MAX], line[256];
	int version = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/include/cuda.h", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!version && fgets(line, sizeof(line), f))
		if (sscanf(line, " #define CUDA_VERSION %d", &version) != 1)
			version = 0;
	fclose(f);
	return version;
}

static void check_toolkit(struct doctor *d)
{
	struct toolkit_candidate candidates[3];
	size_t n = toolkit_candidates(candidates);
	char nvcc[PATH_MAX], v[16];

	for (size_t i = 0; i < n; i++) {
		const char *dir = candidates[i].dir;

		if (!toolkit_dir_usable(dir)) {
			if (candidates[i].named)
				item_add(d, "toolkit", STATE_WARN, "correct it or unset it",
				         "%s names %s, which is not a directory",
				         candidates[i].source, dir);
			continue;
		}
		if (!realpath(dir, d->toolkit_dir))
			snprintf(d->toolkit_dir, sizeof(d->toolkit_dir), "%s", dir);
		d->toolkit_cuda = toolkit_version(dir);
		snprintf(nvcc, sizeof(nvcc), "%s/bin/nvcc", dir);
		item_add(d, "toolkit", STATE_OK, NULL, "%s (%s): CUDA %s%s", d->toolkit_dir,
		         candidates[i].source,
		         d->toolkit_cuda ? cuda_text(d->toolkit_cuda, v, sizeof(v))
		                         : "of unknown version",
		         access(nvcc, X_OK) == 0 ? ", with nvcc" : ", without nvcc");
		return;
	}
	item_add(d, "toolkit", STATE_WARN,
	         "needed only to build CUDA programs: set CUDA_HOME to the toolkit's directory",
	         "no CUDA toolkit (CUDA_HOME, CUDA_PATH, /usr/local/cuda)");
}

/* ------------------------------------------------------------ LTTng */

/* lttng-sessiond as `cudatrace record` would start it. */
static bool check_sessiond_program(struct doctor *d, char *path, size_t size)
{
	const char *env = getenv("LTTNG_SESSIOND_PATH");
	bool named = env && *env;

	if (exec_path_find(named ? env : "lttng-sessiond", path, size) == 0) {
		item_add(d, "lttng-sessiond", STATE_OK, NULL, "%s", path);
		return true;
	}
	item_add(d, "lttng-sessiond", STATE_FAIL,
	         "install LTTng tools 2.13 or later (Debian: apt install lttng-tools), or name the "
	         "daemon with LTTNG_SESSIOND_PATH",
	         "%s", named ? "LTTNG_SESSIOND_PATH names no program" : "not in PATH");
	return false;
}

/*
 * Whether a session daemon answers this user. None is no failure when
 * `cudatrace record` can start one (the program is there and its run
 * directory usable): record does so by itself.
 */
static void check_session_daemon(struct doctor *d, bool can_start)
{
	if (sessiond_alive())
		item_add(d, "session daemon", STATE_OK, NULL, "one answers for this user");
	else if (can_start)
		item_add(
		    d, "session daemon", STATE_WARN,
		    "nothing to do for cudatrace record, which starts one; for lttng(1) by hand: "
		    "lttng-sessiond --daemonize",
		    "none answers for this user; cudatrace record will start one");
	else
		item_add(d, "session daemon", STATE_FAIL,
		         "fix what is said above, then start one: "
		         "lttng-sessiond --daemonize",
		         "none answers for this user, and none can be started");
}

/* The consumer daemon, where lttng-sessiond looks for it. */
static bool check_consumer(struct doctor *d, const char *sessiond)
{
	static const char *const rel[] = {
		"/../lib/x86_64-linux-gnu/lttng/libexec/lttng-consumerd",
		"/../lib/aarch64-linux-gnu/lttng/libexec/lttng-consumerd",
		"/../lib64/lttng/libexec/lttng-consumerd",
		"/../lib/lttng/libexec/lttng-consumerd",
	};
	const char *env = getenv("LTTNG_CONSUMERD64_BIN");
	char consumer[PATH_MAX] = "", dir[PATH_MAX], *slash;

	if (env && *env) {
		copy_text(consumer, sizeof(consumer), env);
	} else if (sessiond) {
		copy_text(dir, sizeof(dir), sessiond);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]) && !consumer[0]; i++) {
			char path[PATH_MAX + 64];

			snprintf(path, sizeof(path), "%s%s", dir, rel[i]);
			if (access(path, X_OK) == 0 && !realpath(path, consumer))
				copy_text(consumer, sizeof(consumer), path);
		}
	}
	if (consumer[0] && access(consumer, X_OK) == 0) {
		item_add(d, "consumer daemon", STATE_OK, NULL, "%s", consumer);
		return true;
	}
	item_add(d, "consumer daemon", STATE_FAIL,
	         "install lttng-tools whole, or name the consumer with LTTNG_CONSUMERD64_BIN",
	         "lttng-consumerd is %s", consumer[0] ? "not executable" : "not found");
	return false;
}

/* The daemon's run directory: it must exist and be writable, or be
 * creatable. */
static bool check_rundir(struct doctor *d)
{
	char rundir[PATH_MAX], parent[PATH_MAX], *slash;
	struct stat st;

	if (sessiond_rundir(rundir, sizeof(rundir)) != 0) {
		item_add(d, "run directory", STATE_FAIL, "set HOME or LTTNG_HOME",
		         "cannot be named: neither LTTNG_HOME nor HOME is set");
		return false;
	}
	if (stat(rundir, &st) == 0) {
		if (S_ISDIR(st.st_mode) && access(rundir, W_OK | X_OK) == 0) {
			item_add(d, "run directory", STATE_OK, NULL, "%s is writable", rundir);
			return true;
		}
		item_add(
		    d, "run directory", STATE_FAIL,
		    "give this user write access to it, or set LTTNG_HOME to a directory of its "
		    "own",
		    "%s is not writable by this user", rundir);
		return false;
	}
	copy_text(parent, sizeof(parent), rundir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	if (access(parent, W_OK | X_OK) == 0) {
		item_add(d, "run directory", STATE_OK, NULL,
		         "%s does not exist yet; the daemon can make it", rundir);
		return true;
	}
	item_add(d, "run directory", STATE_FAIL,
	         "create it, or set LTTNG_HOME to a directory of this user",
	         "%s does not exist and %s is not writable", rundir, parent);
	return false;
}

/* LTTng-UST keeps the ring buffers and its wait futexes in /dev/shm. */
static void check_shm(struct doctor *d)
{
	struct stat st;

	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
		item_add(d, "/dev/shm", STATE_OK, NULL, "writable");
	else
		item_add(
		    d, "/dev/shm", STATE_FAIL,
		    "mount a tmpfs on /dev/shm writable by all (mode 1777): LTTng-UST keeps its "
		    "ring buffers there",
		    "missing or not writable");
}

static void check_lttng(struct doctor *d)
{
	char sessiond[PATH_MAX];
	bool have_sessiond = check_sessiond_program(d, sessiond, sizeof(sessiond));
	bool have_consumer = check_consumer(d, have_sessiond ? sessiond : NULL);
	bool have_rundir = check_rundir(d);

	check_session_daemon(d, have_sessiond && have_consumer && have_rundir);
	check_shm(d);
}

/* ------------------------------------------------------------ the tracer */

typedef int (*cupti_version_fn)(uint32_t *);

/*
 * In a child process (its constructors, LTTng-UST's and CUPTI's, must not
 * run in this one): load the library, look for InitializeInjection, and
 * report the CUPTI it brought. Lines on fd: "error TEXT", "symbol 0|1",
 * "cupti PATH VERSION".
 */
static void __attribute__((noreturn)) probe_tracer(const char *path, int fd)
{
	FILE *out = fdopen(fd, "w");
	void *lib, *cupti;

	if (!out)
		_exit(3);
	setenv("LTTNG_UST_REGISTER_TIMEOUT", "0", 1);
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(out, "error %s\n", dlerror());
		fclose(out);
		_exit(1);
	}
	fprintf(out, "symbol %d\n", dlsym(lib, "InitializeInjection") != NULL);
	/* the CUDA 13 tracer's, or the CUDA 12 one's */
	cupti = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
	if (!cupti)
		cupti = dlopen("libcupti.so.12", RTLD_NOW | RTLD_NOLOAD);
	if (cupti) {
		cupti_version_fn version = (cupti_version_fn)dlsym(cupti, "cuptiGetVersion");
		char where[PATH_MAX];
		uint32_t v = 0;

		lib_probe_path(cupti, where, sizeof(where));
		if (version)
			version(&v);
		fprintf(out, "cupti %s %u\n", where, v);
	}
	fclose(out);
	_exit(0);
}

/* No usable tracing library: the one named (--library, CUDATRACE_LIB)
 * with what is wrong with it, else none found. */
static void tracer_missing(struct doctor *d, const char *library)
{
	const char *named = library ? library : getenv(TRACER_LIB_ENV);
	char why[TEXT];

	d->tracer_path[0] = '\0';
	if (named && *named && tracer_lib_check(named, why, sizeof(why)) != 0)
		item_add(d, "tracer", STATE_FAIL,
		         "name cudatrace's libcudatrace.so with --library or " TRACER_LIB_ENV,
		         "%s cannot be used: %s", named, why);
	else
		item_add(d, "tracer", STATE_FAIL,
		         "reinstall cudatrace, or name libcudatrace.so with --library "
		         "or " TRACER_LIB_ENV,
		         "libcudatrace.so is not found");
}

/*
 * Which tracer the driver gets (ct_compat_tracer_cupti), as `cudatrace
 * record` chooses it: for a CUDA 12 driver, libcudatrace-cuda12.so beside
 * the libcudatrace.so found. Says which and why; false, with no tracer
 * path, when the driver gets none that is there.
 */
static bool choose_tracer(struct doctor *d)
{
	const char *base;

	d->tracer_cupti =
	    ct_compat_tracer_cupti(d->driver_cuda, d->tracer_why, sizeof(d->tracer_why));
	if (!d->driver_cuda)
		return true; /* the driver check says why */
	if (!d->tracer_cupti) {
		item_add(d, "tracer CUPTI", STATE_FAIL,
		         "upgrade the NVIDIA driver: R525 or later for CUPTI 12, R580 or later for "
		         "CUPTI 13",
		         "no tracer runs on this driver: %s", d->tracer_why);
		d->tracer_path[0] = '\0';
		return false;
	}
	if (tracer_lib_for_cupti(d->tracer_path, sizeof(d->tracer_path), d->tracer_cupti) != 0) {
		item_add(
		    d, "tracer CUPTI", STATE_FAIL,
		    "install cudatrace with its CUDA 12 tracer (configure --with-cuda12; "
		    "tools/install-deps gets CUDA 12's CUPTI), or upgrade the NVIDIA driver to "
		    "R580 or later",
		    "CUPTI 12: " TRACER_LIB_CUDA12_NAME " is not beside %s: %s", d->tracer_path,
		    d->tracer_why);
		d->tracer_path[0] = '\0';
		return false;
	}
	base = strrchr(d->tracer_path, '/');
	item_add(d, "tracer CUPTI", STATE_OK, NULL, "CUPTI %d (%s): %s", d->tracer_cupti,
	         base ? base + 1 : d->tracer_path, d->tracer_why);
	return true;
}

static void check_tracer(struct doctor *d, const char *library)
{
	char line[PATH_MAX + 64], error[TEXT] = "";
	int symbol = -1, fds[2], status = 0;
	bool cupti = false;
	pid_t pid;
	FILE *in;

	/* Its message on stderr says where it looked. */
	if (tracer_lib_find(library, d->tracer_path, sizeof(d->tracer_path)) != 0) {
		tracer_missing(d, library);
		return;
	}
	if (!choose_tracer(d))
		return;
	fflush(NULL);
	if (pipe(fds) != 0 || (pid = fork()) < 0) {
		item_add(d, "tracer", STATE_FAIL, NULL, "%s: cannot probe it: %s", d->tracer_path,
		         strerror(errno));
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		probe_tracer(d->tracer_path, fds[1]);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	while (in && fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "error ", 6)) {
			copy_text(error, sizeof(error), line + 6);
		} else if (!strncmp(line, "symbol ", 7)) {
			symbol = atoi(line + 7);
		} else if (!strncmp(line, "cupti ", 6)) {
			char *space = strrchr(line + 6, ' ');

			if (space) {
				*space = '\0';
				d->cupti_version = (unsigned int)strtoul(space + 1, NULL, 10);
			}
			copy_text(d->cupti_path, sizeof(d->cupti_path), line + 6);
			cupti = true;
		}
	}
	if (in)
		fclose(in);
	else
		close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (error[0]) {
		item_add(
		    d, "tracer", STATE_FAIL,
		    strstr(error, "libcupti")
		        ? "put the directory of the toolkit's libcupti on LD_LIBRARY_PATH (the "
		          "toolkit's lib64, or extras/CUPTI/lib64)"
		        : "install what it needs (ldd shows what is missing), or reinstall "
		          "cudatrace",
		    "%s does not load: %s", d->tracer_path, error);
		if (strstr(error, "libcupti"))
			item_add(d, "CUPTI", STATE_FAIL,
			         "put the directory of the toolkit's libcupti on LD_LIBRARY_PATH",
			         "libcupti.so.%d, which the tracer needs, is not found",
			         d->tracer_cupti == 12 ? 12 : 13);
		return;
	}
	if (symbol != 1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		item_add(d, "tracer", STATE_FAIL, "reinstall cudatrace", "%s %s", d->tracer_path,
		         symbol == 0 ? "does not export InitializeInjection: the driver would not "
		                       "start it"
		                     : "crashed while loading");
		return;
	}
	item_add(d, "tracer", STATE_OK, NULL, "%s loads and exports InitializeInjection",
	         d->tracer_path);
	if (cupti)
		item_add(d, "CUPTI", STATE_OK, NULL, "%s: API version %u", d->cupti_path,
		         d->cupti_version);
}

/* ------------------------------------------------------------ the rules */

static void check_rules(struct doctor *d)
{
	const char *expected[CUDA_PLACES_MAX];
	struct ct_library libs[MAX_LIBS] = { { 0 } };
	size_t nlibs = 0, nexpected = cuda_places_expected(d->toolkit_dir, expected);

	ct_compat_init(&d->findings);
	if (d->driver_cuda && d->runtime_cuda)
		ct_compat_check_driver(d->driver_cuda, d->driver_branch, d->runtime_cuda,
		                       &d->findings);
	for (int i = 0; i < d->device_count; i++)
		ct_compat_check_device(d->devices[i].major * 10 + d->devices[i].minor,
		                       d->runtime_cuda ? d->runtime_cuda : d->toolkit_cuda,
		                       &d->findings);
	if (d->driver_path[0])
		libs[nlibs++].path = d->driver_path;
	if (d->runtime_path[0])
		libs[nlibs++].path = d->runtime_path;
	/* The CUDA 12 tracer's CUPTI is the one it was built with (its
	 * RUNPATH), for a driver older than the toolkit: neither the
	 * toolkit's place nor the runtime's major apply to it. */
	if (d->cupti_path[0] && d->tracer_cupti != 12)
		libs[nlibs++].path = d->cupti_path;
	if (d->nvml_path[0])
		libs[nlibs++].path = d->nvml_path;
	ct_compat_check_libraries(libs, nlibs, expected, nexpected, d->runtime_cuda, &d->findings);
}

static bool doctor_failed(const struct doctor *d)
{
	for (size_t i = 0; i < d->item_count; i++)
		if (d->items[i].state == STATE_FAIL)
			return true;
	return ct_compat_worst(&d->findings) == CT_COMPAT_ERROR;
}

/* ------------------------------------------------------------ output */

static void print_text(const struct doctor *d)
{
	static const char *const marks[] = { "[ ok ]", "[warn]", "[FAIL]" };

	for (size_t i = 0; i < d->item_count; i++) {
		const struct item *it = &d->items[i];

		printf("%s %-16s %s\n", marks[it->state], it->name, it->detail);
		if (it->state != STATE_OK && it->fix[0])
			printf("       %-16s fix: %s\n", "", it->fix);
	}
	printf("\n");
	if (!d->findings.count) {
		printf("Findings: none.\n");
	} else {
		printf("Findings:\n");
		for (size_t i = 0; i < d->findings.count; i++) {
			const struct ct_compat_finding *f = &d->findings.items[i];

			printf("  %s: %s (%s)\n", ct_compat_severity_name(f->severity), f->what,
			       f->id);
			printf("    rule: %s\n", f->rule);
			printf("    do:   %s\n", f->action);
		}
	}
	printf("\n%s\n", doctor_failed(d) ? "Something above stops CUDA or tracing from working."
	                                  : "CUDA and tracing can work here.");
}

static void json_add_string(json_object *o, const char *key, const char *value)
{
	json_object_object_add(o, key, value && *value ? json_object_new_string(value) : NULL);
}

static void json_add_version(json_object *o, const char *key, int version)
{
	char v[16];

	json_add_string(o, key, version ? cuda_text(version, v, sizeof(v)) : NULL);
}

static int print_json(const struct doctor *d)
{
	json_object *root = json_object_new_object(), *items = json_object_new_array();
	json_object *devices = json_object_new_array(), *findings = json_object_new_array();
	json_object *driver = json_object_new_object(), *runtime = json_object_new_object();
	json_object *toolkit = json_object_new_object();
	const char *text;

	for (size_t i = 0; i < d->item_count; i++) {
		json_object *it = json_object_new_object();

		json_add_string(it, "name", d->items[i].name);
		json_add_string(it, "state", state_name(d->items[i].state));
		json_add_string(it, "detail", d->items[i].detail);
		json_add_string(it, "fix", d->items[i].state == STATE_OK ? NULL : d->items[i].fix);
		json_object_array_add(items, it);
	}
	json_add_string(driver, "path", d->driver_path);
	json_add_version(driver, "cuda_version", d->driver_cuda);
	json_add_string(driver, "version", d->driver_version);
	json_add_string(runtime, "path", d->runtime_path);
	json_add_version(runtime, "cuda_version", d->runtime_cuda);
	json_add_string(runtime, "initialisation", d->runtime_init);
	json_add_string(toolkit, "path", d->toolkit_dir);
	json_add_version(toolkit, "cuda_version", d->toolkit_cuda);
	for (int i = 0; i < d->device_count; i++) {
		json_object *dev = json_object_new_object();
		char cc[16];

		snprintf(cc, sizeof(cc), "%d.%d", d->devices[i].major, d->devices[i].minor);
		json_object_object_add(dev, "index", json_object_new_int(i));
		json_add_string(dev, "name", d->devices[i].name);
		json_add_string(dev, "compute_capability", cc);
		json_object_object_add(dev, "memory_bytes",
		                       json_object_new_int64((int64_t)d->devices[i].memory));
		json_object_array_add(devices, dev);
	}
	for (size_t i = 0; i < d->findings.count; i++) {
		const struct ct_compat_finding *f = &d->findings.items[i];
		json_object *o = json_object_new_object();

		json_add_string(o, "severity", ct_compat_severity_name(f->severity));
		json_add_string(o, "id", f->id);
		json_add_string(o, "what", f->what);
		json_add_string(o, "rule", f->rule);
		json_add_string(o, "action", f->action);
		json_object_array_add(findings, o);
	}
	json_object_object_add(root, "ok", json_object_new_boolean(!doctor_failed(d)));
	json_object_object_add(root, "items", items);
	json_object_object_add(root, "driver", driver);
	json_object_object_add(root, "devices", devices);
	json_object_object_add(root, "runtime", runtime);
	json_object_object_add(root, "toolkit", toolkit);
	json_add_string(root, "cupti", d->cupti_path);
	json_add_string(root, "tracer", d->tracer_path);
	json_object_object_add(root, "tracer_cupti",
	                       d->tracer_cupti ? json_object_new_int(d->tracer_cupti) : NULL);
	json_add_string(root, "tracer_why", d->tracer_why);
	json_object_object_add(root, "findings", findings);
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
	                                                JSON_C_TO_STRING_NOSLASHESCAPE);
	printf("%s\n", text);
	json_object_put(root);
	return 0;
}

static void print_help(void)
{
	printf("usage: cudatrace doctor [--format text|json] [--library=PATH]\n\n"
	       "Checks what this machine offers CUDA and cudatrace, with no program to run:\n"
	       "the driver and the CUDA version it supports, NVML, each device, the runtime\n"
	       "and toolkit found, LTTng (session daemon, consumer, run directory, /dev/shm)\n"
	       "and the tracing library with its CUPTI; then NVIDIA's compatibility rules on\n"
	       "what was found. Exits with 1 when something would stop CUDA or tracing from\n"
	       "working.\n\n"
	       "Options:\n"
	       "  --format FORMAT   text (a checklist, the default) or json\n"
	       "  --library=PATH    the tracing library to check (default: the one\n"
	       "                    cudatrace record would use)\n"
	       "  -h, --help        show this help\n");
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "library", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct doctor d;
	const char *library = NULL;
	bool json = false;
	int c;

	diag_set_prefix("cudatrace doctor");
	argv[0] = (char *)diag_prefix();
	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		if (c == 'h') {
			print_help();
			return 0;
		}
		if (c == 'l') {
			library = optarg;
			continue;
		}
		if (c == 'f' && (!strcmp(optarg, "json") || !strcmp(optarg, "text"))) {
			json = !strcmp(optarg, "json");
			continue;
		}
		if (c == 'f')
			diag_error("--format is text or json, not '%s'", optarg);
		fputs("Try 'cudatrace doctor --help'.\n", stderr);
		return EXIT_USAGE;
	}
	if (optind < argc) {
		diag_error("takes no arguments (see cudatrace doctor --help)");
		return EXIT_USAGE;
	}
	memset(&d, 0, sizeof(d));
	/* cuInit would load a tracer named here into this process: the
	 * tracer is probed apart, in a child (check_tracer). */
	unsetenv("CUDA_INJECTION64_PATH");
	check_driver(&d);
	check_nvml(&d);
	check_runtime(&d);
	check_toolkit(&d);
	check_lttng(&d);
	check_tracer(&d, library);
	check_rules(&d);
	if (json)
		print_json(&d);
	else
		print_text(&d);
	fflush(stdout);
	return doctor_failed(&d) ? 1 : 0;
}
