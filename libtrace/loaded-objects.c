/* SPDX-License-Identifier: MIT */
/*
 * loaded-objects.c - library_load events from the dynamic linker's list
 * of loaded objects.
 *
 * dl_iterate_phdr(3) gives every object with its program headers in
 * memory: the soname comes from its dynamic section, the build id from
 * its GNU build-id note. The loader's counters (dlpi_adds, dlpi_subs) say
 * whether anything was loaded or unloaded since the last look, so a look
 * that finds nothing new costs one call.
 *
 * The version is the one the library reports of itself, through the
 * first of its own exported functions that says it (cudaRuntimeGetVersion
 * of that copy of libcudart, cudnnGetVersion, ...): dlsym on a handle
 * also searches the object's dependencies, so a function counts only when
 * dladdr places it in the object itself. These functions need no
 * initialisation and make no CUDA call that CUPTI would report to us
 * (cudaRuntimeGetVersion is not among the ids cudatrace enables). They
 * are called after dl_iterate_phdr returns, never under the loader's
 * lock.
 *
 * One CUPTI is cudatrace's: the copy its own calls bind to. A process may
 * load others (a framework's wheel ships its libcupti.so.13 and loads it by
 * full path); another copy is never called, not even for its version,
 * since it was set up for no driver it knows (a wheel's CUPTI on the
 * simulator recurses in cuptiGetVersion until the stack overflows): its
 * library_load says other_cupti instead.
 *
 * The scan runs under a lock that is only ever tried: a thread that
 * would wait for it (a library's constructor starting CUDA while another
 * thread scans from inside dlopen) skips the scan instead, and the next
 * one catches up.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cupti.h>

#include "build-id.h"
#include "device-code.h"
#include "emit.h"
#include "loaded-objects.h"
#include "log.h"
#include "state.h"
#include "text.h"

#define CODES_TEXT 512

struct object {
	uintptr_t base; /* the load bias, dlpi_addr */
	uint64_t start; /* the first byte of its first loadable segment */
	uint64_t size;  /* from there to the end of its last one */
	char *path;
	char soname[128];
	char build_id[BUILD_ID_TEXT];
	char version[48];
	char codes[CODES_TEXT];
	bool at_start;
	bool other_cupti;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct object *objects;
static size_t count, capacity;
static unsigned long long last_adds, last_subs;
static bool scanned; /* once: what is found later was loaded later */

/* ------------------------------------------------------------ in memory */

static uintptr_t dynamic_address(const struct dl_phdr_info *info, ElfW(Addr) value)
{
	/* glibc relocates the dynamic section's addresses, except where it is
	 * read-only (the vDSO): those are still relative. */
	return value < info->dlpi_addr ? info->dlpi_addr + value : value;
}

static void read_soname(const struct dl_phdr_info *info, const ElfW(Phdr) * ph, struct object *o)
{
	const ElfW(Dyn) *dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
	uintptr_t strtab = 0;
	ElfW(Xword) soname = 0;
	bool has_soname = false;

	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_STRTAB)
			strtab = dynamic_address(info, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_SONAME) {
			soname = dyn->d_un.d_val;
			has_soname = true;
		}
	}
	if (strtab && has_soname)
		snprintf(o->soname, sizeof(o->soname), "%s", (const char *)(strtab + soname));
}

/*
 * The range the object's loadable segments span, as lttng-ust's statedump
 * gives it (baddr, memsz): the analyzers name the addresses of call stacks
 * with it, for the objects loaded after the statedump.
 */
static void note_segment(const struct dl_phdr_info *info, const ElfW(Phdr) * ph, struct object *o)
{
	uint64_t start = info->dlpi_addr + ph->p_vaddr;
	uint64_t end = start + ph->p_memsz;

	if (!o->size) {
		o->start = start;
		o->size = ph->p_memsz;
	} else if (end > o->start + o->size) {
		o->size = end - o->start;
	}
}

static bool known(uintptr_t base, const char *path)
{
	for (size_t i = 0; i < count; i++)
		if (objects[i].base == base && !strcmp(objects[i].path, path))
			return true;
	return false;
}

static bool grow(void)
{
	struct object *bigger;
	size_t more = capacity ? 2 * capacity : 64;

	if (count < capacity)
		return true;
	bigger = realloc(objects, more * sizeof(*objects));
	if (!bigger)
		return false;
	objects = bigger;
	capacity = more;
	return true;
}

/* The program itself is listed with no name. */
static char *object_path(const char *name)
{
	char exe[4096];
	ssize_t n;

	if (name && *name)
		return strdup(name);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	return strdup(exe);
}

static int on_object(struct dl_phdr_info *info, size_t size, void *data)
{
	bool *first = data;
	struct object *o;
	char *path;

	(void)size;
	if (*first) {
		*first = false;
		if (scanned && info->dlpi_adds == last_adds && info->dlpi_subs == last_subs)
			return 1; /* nothing loaded or unloaded since the last look */
		last_adds = info->dlpi_adds;
		last_subs = info->dlpi_subs;
	}
	if (info->dlpi_name && !strncmp(info->dlpi_name, "linux-vdso", 10))
		return 0;
	path = object_path(info->dlpi_name);
	if (!path || known(info->dlpi_addr, path) || !grow()) {
		free(path);
		return 0;
	}
	o = &objects[count++];
	memset(o, 0, sizeof(*o));
	o->base = info->dlpi_addr;
	o->path = path;
	o->at_start = !scanned;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type == PT_LOAD)
			note_segment(info, &info->dlpi_phdr[i], o);
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			read_soname(info, &info->dlpi_phdr[i], o);
		else if (info->dlpi_phdr[i].p_type == PT_NOTE && !o->build_id[0])
			build_id_from_notes(
			    (const unsigned char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr),
			    info->dlpi_phdr[i].p_memsz, o->build_id);
	}
	return 0;
}

/* ------------------------------------------------------------ versions */

enum version_kind {
	VERSION_INT_OUT,   /* int f(int *) */
	VERSION_UINT_OUT,  /* int f(unsigned *) */
	VERSION_SIZE,      /* size_t f(void) */
	VERSION_PAIR_OUT,  /* int f(int *major, int *minor) */
	VERSION_PROPERTY3, /* int f(int type, int *): major, minor, patch */
};

/* The libraries' own version functions, from their headers. */
static const struct {
	const char *symbol;
	enum version_kind kind;
} version_fns[] = {
	{ "cudaRuntimeGetVersion", VERSION_INT_OUT }, /* cuda_runtime_api.h */
	{ "cuDriverGetVersion", VERSION_INT_OUT },    /* cuda.h */
	{ "cuptiGetVersion", VERSION_UINT_OUT },      /* cupti_version.h */
	{ "cudnnGetVersion", VERSION_SIZE },          /* cudnn_graph.h */
	{ "cublasLtGetVersion", VERSION_SIZE },       /* cublasLt.h */
	{ "cublasGetProperty", VERSION_PROPERTY3 },   /* cublas_api.h */
	{ "cufftGetVersion", VERSION_INT_OUT },       /* cufft.h */
	{ "ncclGetVersion", VERSION_INT_OUT },        /* nccl.h */
	{ "nvrtcVersion", VERSION_PAIR_OUT },         /* nvrtc.h */
	{ "nvJitLinkVersion", VERSION_PAIR_OUT },     /* nvJitLink.h */
};

static bool call_version(void *fn, enum version_kind kind, char *out, size_t size)
{
	int a = 0, b = 0, c = 0;
	unsigned u = 0;

	switch (kind) {
	case VERSION_INT_OUT:
		if (((int (*)(int *))fn)(&a) != 0)
			return false;
		snprintf(out, size, "%d", a);
		return true;
	case VERSION_UINT_OUT:
		if (((int (*)(unsigned *))fn)(&u) != 0)
			return false;
		snprintf(out, size, "%u", u);
		return true;
	case VERSION_SIZE:
		snprintf(out, size, "%zu", ((size_t(*)(void))fn)());
		return true;
	case VERSION_PAIR_OUT:
		if (((int (*)(int *, int *))fn)(&a, &b) != 0)
			return false;
		snprintf(out, size, "%d.%d", a, b);
		return true;
	case VERSION_PROPERTY3: {
		int (*property)(int, int *) = (int (*)(int, int *))fn;

		if (property(0, &a) != 0 || property(1, &b) != 0 || property(2, &c) != 0)
			return false;
		snprintf(out, size, "%d.%d.%d", a, b, c);
		return true;
	}
	}
	return false;
}

/* Whether the object holds the CUPTI cudatrace's own calls bind to. */
static bool holds_bound_cupti(const struct object *o)
{
	uintptr_t bound = (uintptr_t)&cuptiGetVersion;

	return bound >= o->start && bound - o->start < o->size;
}

/* A function the object defines itself, not one of its dependencies'. */
static void *own_symbol(void *handle, const struct object *o, const char *name)
{
	void *fn = dlsym(handle, name);
	Dl_info where;

	if (!fn || !dladdr(fn, &where) || !where.dli_fname || strcmp(where.dli_fname, o->path))
		return NULL;
	return fn;
}

static void read_version(struct object *o)
{
	void *handle = dlopen(o->path, RTLD_LAZY | RTLD_NOLOAD);

	if (!handle)
		return;
	/* A CUPTI that is not cudatrace's: none of its functions is called. */
	if (own_symbol(handle, o, "cuptiGetVersion") && !holds_bound_cupti(o)) {
		o->other_cupti = true;
		dlclose(handle);
		return;
	}
	for (size_t i = 0; i < sizeof(version_fns) / sizeof(version_fns[0]); i++) {
		void *fn = own_symbol(handle, o, version_fns[i].symbol);

		if (!fn)
			continue;
		if (call_version(fn, version_fns[i].kind, o->version, sizeof(o->version)))
			break;
		o->version[0] = '\0';
	}
	dlclose(handle);
}

/* ------------------------------------------------------------ events */

static void emit(const struct object *o)
{
	EMIT(library_load, &(struct ct_ev_library_load){
	                       .path = o->path,
	                       .path_len = text_length(o->path),
	                       .soname = o->soname,
	                       .soname_len = text_length(o->soname),
	                       .build_id = o->build_id,
	                       .build_id_len = text_length(o->build_id),
	                       .version = o->version,
	                       .version_len = text_length(o->version),
	                       .device_code = o->codes,
	                       .device_code_len = text_length(o->codes),
	                       .at_start = o->at_start,
	                       .other_cupti = o->other_cupti,
	                       .base = o->start,
	                       .size = o->size,
	                   });
}

/* Under the lock: find the new objects, describe and emit them. */
static void scan_locked(void)
{
	size_t first_new = count;
	bool first = true;

	dl_iterate_phdr(on_object, &first);
	scanned = true;
	for (size_t i = first_new; i < count; i++) {
		device_code_of_file(objects[i].path, objects[i].codes, sizeof(objects[i].codes));
		read_version(&objects[i]);
		/* cut after a whole name, not in the middle of one */
		text_bound_list(objects[i].codes);
		emit(&objects[i]);
	}
}

void loaded_objects_scan(void)
{
	if (!tracer_active() || pthread_mutex_trylock(&lock) != 0)
		return;
	scan_locked();
	pthread_mutex_unlock(&lock);
}

void loaded_objects_announce(void)
{
	if (!tracer_active() || pthread_mutex_trylock(&lock) != 0)
		return;
	for (size_t i = 0; i < count; i++)
		emit(&objects[i]);
	scan_locked();
	pthread_mutex_unlock(&lock);
}
