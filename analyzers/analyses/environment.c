/* SPDX-License-Identifier: MIT */
/*
 * environment.c - the environment analysis: per process, what its CUDA
 * stood on and why CUDA may have refused it. The driver (driver_info),
 * the devices (device_info, through the context), the CUDA libraries it
 * loaded (library_load), the modules with the architectures of their
 * images (module_load, module_load_failed), the calls that failed with an
 * error that
 * compatibility explains (api_call), and the findings of NVIDIA's
 * compatibility rules (compat.c) on all that: a driver too old for the
 * runtime, code for no architecture the device runs, PTX that is
 * JIT-compiled, two copies of a library.
 *
 * The runtime is the first libcudart the process loaded, its version the
 * one that copy reported (cudaRuntimeGetVersion), else the one in its
 * file's name.
 *
 * What the recorder kept beside the trace (recorded.h) fills in what the
 * trace lacks: the driver's CUDA version and the objects of a process
 * that has no driver_info or library_load, and a process of its own for
 * one that left no event at all but loaded a CUDA library (a runtime that
 * refused the driver never loads the tracer).
 *
 * Memory: per process, one entry per distinct shared object and per
 * (API, error); the trace's other events are not looked at.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "environment.h"
#include "common/compat.h"
#include "common/recorded.h"

#define MAX_CODES 64
#define MAX_LIBS  256

/* One shared object the process loaded. */
struct library {
	char *path, *soname, *build_id, *version, *device_code; /* owned */
	char *file;    /* the file path leads to, from the recorder's list; owned, "" if unknown */
	char name[64]; /* "libcudart" when it is one of NVIDIA's, else "" */
	bool at_start;
};

/* A module whose image listed its architectures, loaded or refused. */
struct module {
	uint32_t module; /* CUPTI's id; 0 for one refused */
	uint8_t device;
	int32_t result;    /* 0, or the CUresult of the load that refused it */
	uint16_t ptx_isa;  /* of a refused PTX text, x 10; 0 if none */
	char *device_code; /* owned */
};

/* A call that failed with an error compatibility explains. */
struct failure {
	uint8_t domain;
	uint16_t cbid;
	int32_t code;
	uint64_t count;
	int64_t first_ns;
};

struct env_process {
	struct ct_process *process; /* borrowed; NULL for one known from the recorder only */
	int64_t pid;
	char procname[64];
	bool has_driver;
	int32_t driver_cuda;
	char driver_version[96];
	GPtrArray *libraries; /* struct library, in order of loading; owned */
	GHashTable *by_path;  /* path -> its library; borrowed */
	GArray *failures;     /* struct failure */
	GArray *modules;      /* struct module */
	int runtime_cuda;     /* from the first libcudart, 0 if unknown */
	const struct library *runtime;
	struct ct_compat_findings findings;
	const struct ct_recorded_process
	    *recorded; /* the recorder's list, NULL if none; borrowed */
};

struct environment {
	struct ct_environment_result result; /* its processes' rows borrow from processes */
	const struct ct_options *opts;       /* borrowed */
	GPtrArray *processes;   /* struct env_process, in order of first event; owned */
	GHashTable *by_process; /* struct ct_process * -> its entry; borrowed */
	/* The process found last and its entry: every api_call comes here,
	 * and a trace's events come in runs of one process's. */
	const struct ct_process *last_process;
	struct env_process *last;
};

/* ------------------------------------------------------------ state */

static void library_free(gpointer data)
{
	struct library *lib = data;

	g_free(lib->path);
	g_free(lib->soname);
	g_free(lib->build_id);
	g_free(lib->version);
	g_free(lib->device_code);
	g_free(lib->file);
	g_free(lib);
}

static void process_free(gpointer data)
{
	struct env_process *p = data;

	g_hash_table_destroy(p->by_path);
	g_ptr_array_free(p->libraries, TRUE);
	g_array_free(p->failures, TRUE);
	for (guint i = 0; i < p->modules->len; i++)
		g_free(g_array_index(p->modules, struct module, i).device_code);
	g_array_free(p->modules, TRUE);
	g_free(p);
}

static struct env_process *process_new(struct environment *env, struct ct_process *process)
{
	struct env_process *p = g_new0(struct env_process, 1);

	p->process = process;
	p->libraries = g_ptr_array_new_with_free_func(library_free);
	p->by_path = g_hash_table_new(g_str_hash, g_str_equal);
	p->failures = g_array_new(FALSE, TRUE, sizeof(struct failure));
	p->modules = g_array_new(FALSE, TRUE, sizeof(struct module));
	g_ptr_array_add(env->processes, p);
	return p;
}

static struct env_process *process_of(struct environment *env, struct ct_process *process)
{
	struct env_process *p;

	if (process == env->last_process)
		return env->last;
	p = g_hash_table_lookup(env->by_process, process);
	if (!p) {
		p = process_new(env, process);
		p->pid = process->pid;
		snprintf(p->procname, sizeof(p->procname), "%s", process->procname);
		g_hash_table_insert(env->by_process, process, p);
	}
	env->last_process = process;
	env->last = p;
	return p;
}

/* ------------------------------------------------------------ events */

static void on_driver(struct env_process *p, const struct ct_ev_driver_info *e)
{
	p->has_driver = true;
	p->driver_cuda = e->cuda_version;
	snprintf(p->driver_version, sizeof(p->driver_version), "%s",
	         e->driver_version ? e->driver_version : "");
}

/* The library at path, new to p (NULL when known, or the list is full). */
static struct library *library_add(struct env_process *p, const char *path)
{
	struct library *lib;
	char version[64];

	if (!path || !*path || g_hash_table_contains(p->by_path, path) ||
	    p->libraries->len >= MAX_LIBS)
		return NULL;
	lib = g_new0(struct library, 1);
	lib->path = g_strdup(path);
	if (!ct_library_identify(lib->path, lib->name, sizeof(lib->name), version, sizeof(version)))
		lib->name[0] = '\0';
	g_ptr_array_add(p->libraries, lib);
	g_hash_table_insert(p->by_path, lib->path, lib);
	return lib;
}

/* A library is announced again to each session that starts: kept once. */
static void on_library(struct env_process *p, const struct ct_ev_library_load *e)
{
	struct library *lib = library_add(p, e->path);

	if (!lib)
		return;
	lib->soname = g_strdup(e->soname ? e->soname : "");
	lib->build_id = g_strdup(e->build_id ? e->build_id : "");
	lib->version = g_strdup(e->version ? e->version : "");
	lib->device_code = g_strdup(e->device_code ? e->device_code : "");
	lib->file = g_strdup("");
	lib->at_start = e->at_start;
}

/* Modules with a list of architectures; those of a single cubin say nothing. */
static void module_add(struct env_process *p, uint32_t module, uint8_t device, int32_t result,
                       const char *device_code, uint16_t ptx_isa)
{
	if (!device_code || !*device_code || p->modules->len >= MAX_LIBS)
		return;
	g_array_append_val(p->modules, ((struct module){ .module = module,
	                                                 .device = device,
	                                                 .result = result,
	                                                 .ptx_isa = ptx_isa,
	                                                 .device_code = g_strdup(device_code) }));
}

/* The errors the compatibility rules explain, in both APIs' numbering:
 * cudaErrorInsufficientDriver (35), no kernel image / no binary for the
 * GPU (209), invalid PTX (218), no PTX JIT compiler (221), unsupported
 * PTX version (222). */
static bool compat_error(int32_t code)
{
	return code == 35 || code == 209 || code == 218 || code == 221 || code == 222;
}

static void on_api_call(struct env_process *p, const struct ct_event *ev)
{
	const struct ct_ev_api_call *e = &ev->u.api_call;
	struct failure *f;

	if (!compat_error(e->result))
		return;
	for (guint i = 0; i < p->failures->len; i++) {
		f = &g_array_index(p->failures, struct failure, i);
		if (f->domain == e->domain && f->cbid == e->cbid && f->code == e->result) {
			f->count++;
			return;
		}
	}
	g_array_append_val(p->failures, ((struct failure){ .domain = e->domain,
	                                                   .cbid = e->cbid,
	                                                   .code = e->result,
	                                                   .count = 1,
	                                                   .first_ns = ev->time_ns }));
}

static void environment_event(void *state, const struct ct_event *ev)
{
	struct environment *env = state;
	struct env_process *p = process_of(env, ev->process);

	switch (ev->type) {
	case CT_EV_DRIVER_INFO:
		on_driver(p, &ev->u.driver_info);
		break;
	case CT_EV_LIBRARY_LOAD:
		on_library(p, &ev->u.library_load);
		break;
	case CT_EV_MODULE_LOAD:
		module_add(p, ev->u.module_load.module, ev->u.module_load.device, 0,
		           ev->u.module_load.device_code, 0);
		break;
	case CT_EV_MODULE_LOAD_FAILED:
		module_add(p, 0, ev->u.module_load_failed.device, ev->u.module_load_failed.result,
		           ev->u.module_load_failed.device_code, ev->u.module_load_failed.ptx_isa);
		break;
	case CT_EV_API_CALL:
		on_api_call(p, ev);
		break;
	default:
		break;
	}
}

static enum ct_analysis_status environment_finish(void *state, int64_t end_ns)
{
	(void)state;
	(void)end_ns;
	return CT_ANALYSIS_OK;
}

/* ------------------------------------------------------------ the recorder's lists */

static bool pid_wanted(const struct ct_options *opts, int64_t pid, const char *procname)
{
	bool by_pid = !opts->pid_count, by_name = !opts->procname_count;

	for (size_t i = 0; i < opts->pid_count; i++)
		by_pid |= opts->pids[i] == pid;
	for (size_t i = 0; i < opts->procname_count; i++)
		by_name |= !strcmp(opts->procnames[i], procname);
	return by_pid && by_name;
}

static struct env_process *process_by_pid(const struct environment *env, int64_t pid)
{
	for (guint i = 0; i < env->processes->len; i++) {
		struct env_process *p = g_ptr_array_index(env->processes, i);

		if (p->pid == pid)
			return p;
	}
	return NULL;
}

static void add_recorded(struct environment *env, const struct ct_recorded_process *rp)
{
	struct env_process *p = process_by_pid(env, rp->pid);

	if (!pid_wanted(env->opts, rp->pid, rp->procname))
		return;
	if (!p) {
		/* Left no event: worth a word only if it loaded CUDA. */
		if (!ct_recorded_loaded_cuda(rp))
			return;
		p = process_new(env, NULL);
		p->pid = rp->pid;
		snprintf(p->procname, sizeof(p->procname), "%s", rp->procname);
	}
	p->recorded = rp;
	if (!p->has_driver && rp->driver_cuda > 0) {
		p->has_driver = true;
		p->driver_cuda = rp->driver_cuda;
	}
	if (p->libraries->len)
		return; /* the trace's own list, with the versions the libraries report */
	for (size_t i = 0; i < rp->object_count; i++) {
		const struct ct_recorded_object *o = &rp->objects[i];
		struct library *lib = library_add(p, o->path);

		if (!lib)
			continue;
		lib->soname = g_strdup(o->soname);
		lib->build_id = g_strdup(o->build_id);
		lib->version = g_strdup("");
		lib->device_code = g_strdup("");
		lib->file = g_strdup(o->file);
		lib->at_start = false;
	}
}

/* ------------------------------------------------------------ the rules */

static int device_cc(const struct ct_device *d)
{
	return d ? d->cc_major * 10 + d->cc_minor : 0;
}

/* Whether a call of the process failed with CODE. */
static bool failed_with(const struct env_process *p, int32_t code)
{
	for (guint i = 0; i < p->failures->len; i++)
		if (g_array_index(p->failures, struct failure, i).code == code)
			return true;
	return false;
}

/*
 * Whether a library's finding F stands on evidence. What the tracer reads
 * of a library's device code is its .nv_fatbin section, and a library may
 * keep its real code elsewhere (libcufft keeps one sm_75 cubin there and
 * the rest in .ldata): that no code there fits the device is no failure
 * until a call fails for it, with cudaErrorNoKernelImageForDevice (209)
 * or cudaErrorUnsupportedPtxVersion (222). Notes stand as they are.
 */
static bool library_finding_stands(const struct env_process *p, const struct ct_compat_finding *f)
{
	if (!strcmp(f->id, "no-code-for-device"))
		return failed_with(p, 209);
	if (!strcmp(f->id, "ptx-too-new"))
		return failed_with(p, 222);
	return f->severity != CT_COMPAT_ERROR;
}

/* LIB's device code against compute capability CC: its findings that stand. */
static void check_library_code(struct env_process *p, const struct library *lib, int cc)
{
	struct ct_code codes[MAX_CODES];
	size_t n = ct_code_parse_list(lib->device_code, codes, MAX_CODES);
	struct ct_compat_findings *found; /* 48 KiB: not on the stack */

	if (!n)
		return;
	found = g_new(struct ct_compat_findings, 1);
	ct_compat_init(found);
	ct_compat_check_code(cc, p->driver_cuda, codes, n, lib->path, found);
	for (size_t i = 0; i < found->count; i++) {
		if (!library_finding_stands(p, &found->items[i]))
			continue;
		if (p->findings.count < CT_COMPAT_MAX_FINDINGS)
			p->findings.items[p->findings.count++] = found->items[i];
		else
			p->findings.dropped++;
	}
	g_free(found);
}

/* The device code of each library against each compute capability the
 * process's devices have (once per compute capability). */
static void check_codes(struct env_process *p)
{
	int seen[256];
	size_t nseen = 0;

	if (!p->process)
		return;
	for (unsigned dev = 0; dev < 256; dev++) {
		int cc = device_cc(p->process->devices[dev]);
		bool again = false;

		for (size_t k = 0; k < nseen; k++)
			again |= seen[k] == cc;
		if (cc <= 0 || again)
			continue;
		seen[nseen++] = cc;
		for (guint i = 0; i < p->libraries->len; i++)
			check_library_code(p, g_ptr_array_index(p->libraries, i), cc);
	}
}

/* The version the runtime reported, else the one its file's name holds
 * (libcudart.so.13.0.48, where the dynamic linker's path is libcudart.so.13). */
static int runtime_version(const struct library *lib)
{
	char name[64], version[64];

	if (lib->version[0])
		return atoi(lib->version);
	if (lib->file[0] &&
	    ct_library_identify(lib->file, name, sizeof(name), version, sizeof(version)))
		return ct_cuda_version_parse(version);
	if (ct_library_identify(lib->path, name, sizeof(name), version, sizeof(version)))
		return ct_cuda_version_parse(version);
	return 0;
}

/* Whether two lists of architectures name the same ones, in any order. */
static bool same_codes(const char *a, const char *b)
{
	gchar **as = g_strsplit(a, ",", -1), **bs = g_strsplit(b, ",", -1);
	bool same = g_strv_length(as) == g_strv_length(bs);

	for (gchar **x = as; same && *x; x++)
		same = g_strv_contains((const gchar *const *)bs, *x);
	g_strfreev(as);
	g_strfreev(bs);
	return same;
}

/* A library whose file holds the same device code as the module (the
 * program's own fat binary, registered by the runtime): its findings,
 * made from the library, are the module's. */
static bool code_of_a_library(const struct env_process *p, const char *device_code)
{
	for (guint i = 0; i < p->libraries->len; i++) {
		const struct library *lib = g_ptr_array_index(p->libraries, i);

		if (lib->device_code[0] && same_codes(lib->device_code, device_code))
			return true;
	}
	return false;
}

/* The refusals the code rules explain: no code for the device (209), PTX
 * for a later architecture (218), PTX text newer than the driver (222,
 * with its ISA version; a fat binary's PTX has none to read). A missing
 * JIT compiler (221) is the driver's installation, among the errors. */
static bool explained_refusal(const struct module *m)
{
	return m->result == 209 || m->result == 218 || (m->result == 222 && m->ptx_isa);
}

/*
 * The device code of modules loaded from memory (cuModuleLoadData, NVRTC's
 * output, a fat binary read from a file) against their device, and of
 * those the driver refused for their code: a refused PTX text's ISA
 * version (module_load_failed's ptx_isa) says which driver it needs.
 */
static void check_modules(struct env_process *p)
{
	for (guint i = 0; p->process && i < p->modules->len; i++) {
		const struct module *m = &g_array_index(p->modules, struct module, i);
		int cc = device_cc(p->process->devices[m->device]);
		struct ct_code codes[MAX_CODES];
		size_t n = ct_code_parse_list(m->device_code, codes, MAX_CODES);
		char name[48];

		if (cc <= 0 || !n || (m->result && !explained_refusal(m)) ||
		    (!m->result && code_of_a_library(p, m->device_code)))
			continue;
		for (size_t k = 0; k < n; k++)
			if (codes[k].ptx)
				codes[k].isa = m->ptx_isa;
		if (m->result)
			snprintf(name, sizeof(name), "a module the driver refused");
		else
			snprintf(name, sizeof(name), "module %u", m->module);
		ct_compat_check_code(cc, p->driver_cuda, codes, n, name, &p->findings);
	}
}

static void check_process(struct env_process *p)
{
	struct ct_library libs[MAX_LIBS];
	size_t nlibs = 0;

	ct_compat_init(&p->findings);
	for (guint i = 0; i < p->libraries->len; i++) {
		const struct library *lib = g_ptr_array_index(p->libraries, i);

		if (!p->runtime && !strcmp(lib->name, "libcudart")) {
			p->runtime = lib;
			p->runtime_cuda = runtime_version(lib);
		}
		if (lib->name[0])
			libs[nlibs++] = (struct ct_library){ lib->path, lib->version };
	}
	if (p->has_driver)
		ct_compat_check_driver(p->driver_cuda, atoi(p->driver_version), p->runtime_cuda,
		                       &p->findings);
	for (unsigned dev = 0; dev < 256 && p->runtime_cuda && p->process; dev++)
		if (device_cc(p->process->devices[dev]) > 0)
			ct_compat_check_device(device_cc(p->process->devices[dev]), p->runtime_cuda,
			                       &p->findings);
	check_codes(p);
	check_modules(p);
	/* Where the libraries should come from is known of a recorded program only. */
	ct_compat_check_libraries(
	    libs, nlibs, p->recorded ? (const char *const *)p->recorded->places : NULL,
	    p->recorded ? p->recorded->place_count : 0, p->runtime_cuda, &p->findings);
}

/*
 * The result is a part of the analysis's state (struct environment's
 * result): the findings read it, the section is written from the state
 * around it (environment_of).
 */
static enum ct_analysis_status environment_result(void *state, const void **result)
{
	struct environment *env = state;
	const struct ct_recorded *recorded = env->opts->recorded;

	for (size_t i = 0; recorded && i < recorded->count; i++)
		add_recorded(env, &recorded->processes[i]);
	g_array_set_size(env->result.processes, 0);
	for (guint i = 0; i < env->processes->len; i++) {
		struct env_process *p = g_ptr_array_index(env->processes, i);
		const struct ct_environment_process row = {
			.pid = p->pid,
			.procname = p->procname[0] ? p->procname : NULL,
			.findings = &p->findings,
		};

		check_process(p);
		g_array_append_val(env->result.processes, row);
	}
	*result = &env->result;
	return CT_ANALYSIS_OK;
}

/* The analysis whose result is RESULT. */
static const struct environment *environment_of(const struct ct_environment_result *result)
{
	return (const struct environment *)((const char *)result -
	                                    offsetof(struct environment, result));
}

/* ------------------------------------------------------------ report */

static void write_version(struct ct_doc *doc, const char *key, int cuda_version)
{
	char text[16];

	ct_doc_string(doc, key,
	              cuda_version > 0 ? ct_cuda_version_text(cuda_version, text, sizeof(text))
	                               : NULL);
}

static void write_driver(struct ct_doc *doc, const struct env_process *p)
{
	ct_doc_object(doc, "driver", "Driver");
	write_version(doc, "cuda_version", p->has_driver ? p->driver_cuda : 0);
	ct_doc_string(doc, "version", p->driver_version[0] ? p->driver_version : NULL);
	ct_doc_end(doc);
	ct_doc_object(doc, "runtime", "Runtime");
	ct_doc_string(doc, "path", p->runtime ? p->runtime->path : NULL);
	write_version(doc, "cuda_version", p->runtime_cuda);
	ct_doc_end(doc);
}

static void write_devices(struct ct_doc *doc, const struct env_process *p)
{
	ct_doc_array(doc, "devices", "Devices");
	for (unsigned dev = 0; dev < 256 && p->process; dev++) {
		const struct ct_device *d = p->process->devices[dev];
		char cc[16];

		if (!d || device_cc(d) <= 0)
			continue;
		snprintf(cc, sizeof(cc), "%u.%u", d->cc_major, d->cc_minor);
		ct_doc_object(doc, NULL, NULL);
		ct_doc_u64(doc, "device", dev, CT_UNIT_ID);
		ct_doc_string(doc, "name", d->name[0] ? d->name : NULL);
		ct_doc_string(doc, "compute_capability", cc);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

/* NVIDIA's libraries, and any object that carries device code. */
static void write_libraries(struct ct_doc *doc, const struct env_process *p, size_t max_rows)
{
	size_t shown = 0;

	ct_doc_u64(doc, "object_count", p->libraries->len, CT_UNIT_NONE);
	ct_doc_array(doc, "libraries", "CUDA libraries and device code loaded");
	for (guint i = 0; i < p->libraries->len && shown < max_rows; i++) {
		const struct library *lib = g_ptr_array_index(p->libraries, i);

		if (!lib->name[0] && !lib->device_code[0])
			continue;
		shown++;
		ct_doc_object(doc, NULL, NULL);
		ct_doc_string(doc, "path", lib->path);
		ct_doc_string(doc, "soname", lib->soname[0] ? lib->soname : NULL);
		ct_doc_string(doc, "version", lib->version[0] ? lib->version : NULL);
		ct_doc_string(doc, "build_id", lib->build_id[0] ? lib->build_id : NULL);
		ct_doc_string(doc, "device_code", lib->device_code[0] ? lib->device_code : NULL);
		ct_doc_bool(doc, "at_start", lib->at_start);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_modules(struct ct_doc *doc, const struct env_process *p, size_t max_rows)
{
	ct_doc_array(doc, "modules", "Modules loaded or refused, with their architectures");
	for (guint i = 0; i < p->modules->len && i < max_rows; i++) {
		const struct module *m = &g_array_index(p->modules, struct module, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_u64(doc, "module", m->module, CT_UNIT_ID);
		ct_doc_u64(doc, "device", m->device, CT_UNIT_ID);
		ct_doc_string(doc, "device_code", m->device_code);
		ct_doc_bool(doc, "loaded", m->result == 0);
		ct_doc_i64(doc, "result", m->result, CT_UNIT_ID);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_failures(struct ct_doc *doc, const struct env_process *p)
{
	ct_doc_array(doc, "errors", "Calls CUDA refused");
	for (guint i = 0; i < p->failures->len; i++) {
		const struct failure *f = &g_array_index(p->failures, struct failure, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_string(doc, "api", ct_context_api_name(p->process, f->domain, f->cbid));
		ct_doc_i64(doc, "code", f->code, CT_UNIT_ID);
		ct_doc_u64(doc, "count", f->count, CT_UNIT_NONE);
		ct_doc_i64(doc, "first_time_ns", f->first_ns, CT_UNIT_TIME);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_findings(struct ct_doc *doc, const struct env_process *p)
{
	ct_doc_array(doc, "findings", "Findings");
	for (size_t i = 0; i < p->findings.count; i++) {
		const struct ct_compat_finding *f = &p->findings.items[i];

		ct_doc_object(doc, NULL, NULL);
		ct_doc_string(doc, "severity", ct_compat_severity_name(f->severity));
		ct_doc_string(doc, "id", f->id);
		ct_doc_string(doc, "what", f->what);
		ct_doc_string(doc, "rule", f->rule);
		ct_doc_string(doc, "action", f->action);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

static void write_section(struct ct_doc *doc, const struct ct_result *results, size_t count)
{
	const struct environment *env =
	    environment_of(ct_result_of(results, count, CT_ANALYSIS_ENVIRONMENT));

	ct_doc_array(doc, "environment", "Environment, per process");
	for (guint i = 0; i < env->processes->len; i++) {
		const struct env_process *p = g_ptr_array_index(env->processes, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "pid", p->pid, CT_UNIT_ID);
		ct_doc_string(doc, "procname", p->procname[0] ? p->procname : NULL);
		/* Known from the recorder's lists only: CUDA never started in it. */
		ct_doc_bool(doc, "traced", p->process != NULL);
		write_driver(doc, p);
		write_devices(doc, p);
		write_libraries(doc, p, env->opts->max_rows);
		write_modules(doc, p, env->opts->max_rows);
		write_failures(doc, p);
		write_findings(doc, p);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

const struct ct_section_class ct_environment_section = {
	.name = "environment",
	.write = write_section,
};

/* --------------------------------------------------------- lifecycle */

static enum ct_analysis_status environment_create(struct ct_context *ctx,
                                                  const struct ct_options *opts, void **state)
{
	struct environment *env = g_new0(struct environment, 1);

	(void)ctx;
	*state = env;
	env->opts = opts;
	env->processes = g_ptr_array_new_with_free_func(process_free);
	env->result.processes = g_array_new(FALSE, TRUE, sizeof(struct ct_environment_process));
	env->by_process = g_hash_table_new(g_direct_hash, g_direct_equal);
	return CT_ANALYSIS_OK;
}

static void environment_destroy(void *state)
{
	struct environment *env = state;

	if (!env)
		return;
	g_hash_table_destroy(env->by_process);
	g_ptr_array_free(env->processes, TRUE);
	g_array_unref(env->result.processes);
	g_free(env);
}

const struct ct_analysis_class ct_environment_analysis = {
	.name = "environment",
	.id = CT_ANALYSIS_ENVIRONMENT,
	.section = &ct_environment_section,
	.wants = CT_EV_BIT(CT_EV_DRIVER_INFO) | CT_EV_BIT(CT_EV_LIBRARY_LOAD) |
	         CT_EV_BIT(CT_EV_MODULE_LOAD) | CT_EV_BIT(CT_EV_MODULE_LOAD_FAILED) |
	         CT_EV_BIT(CT_EV_API_CALL),
	.create = environment_create,
	.event = environment_event,
	.finish = environment_finish,
	.result = environment_result,
	.destroy = environment_destroy,
};
