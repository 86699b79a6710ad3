/* SPDX-License-Identifier: MIT */
/*
 * cuda-errors.c - the sticky CUDA errors analysis (cuda-errors.h): the
 * first failed call (api_call) of each process whose result is one of the errors that
 * leave its CUDA context unusable, and the failed calls after it.
 *
 * Memory: one entry per process that got such an error.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "common/cuda-error-names.h"
#include "common/demangle.h"
#include "cuda-errors.h"

/*
 * The codes cuda.h and driver_types.h describe as leaving the process in
 * an inconsistent state, where any further CUDA work returns the same
 * error; the two enums give them the same values.
 */
static const int32_t sticky_codes[] = { 226, 700, 702, 714, 715, 716, 717, 718, 719, 911 };

/* The name of sticky CODE in DOMAIN, NULL when CODE is not one. */
static const char *sticky_name(unsigned domain, int32_t code)
{
	for (size_t i = 0; i < sizeof(sticky_codes) / sizeof(sticky_codes[0]); i++)
		if (sticky_codes[i] == code)
			return ct_cuda_error_name(domain, code);
	return NULL;
}

bool ct_cuda_error_is_sticky(unsigned domain, int32_t code)
{
	return (domain == CT_DOMAIN_DRIVER || domain == CT_DOMAIN_RUNTIME) &&
	       sticky_name(domain, code) != NULL;
}

/*
 * Where a call was made, as the pass knows it: named (site_text) at the
 * end, when the stacks are symbolized with every object the trace will
 * say the process loaded.
 */
struct call_at {
	uint32_t path; /* NVTX range path */
	struct ct_api_ref api;
	uint64_t stack_id; /* its thread's op_stack_id (context.h) */
};

/* What the analysis keeps of a process: its sticky error, its last launch. */
struct last_launch {
	struct ct_process *process;
	/* 1 + the index of its entry in result.sticky, 0 none; where the call
	 * that returned it was made, and the last launch before it, if any */
	uintptr_t sticky;
	struct call_at sticky_at, sticky_launch_at;
	bool sticky_launched;
	/* Its last failed call: 1 + the index of its entry in result.failed_calls,
	 * 0 none; and where it was called. */
	uintptr_t failed;
	struct call_at failed_at;
	/* The last allocation refused (mem_alloc_failed, written before its
	 * call's api_call): its call and the stack it was made from, which the
	 * thread's op stack is not. */
	uint32_t refused_correlation_id;
	uint64_t refused_stack_id;
	bool known; /* a launch was seen */
	bool graph;
	uint64_t kernel_id;
	int64_t time_ns;
	struct call_at at;
};

struct cuda_errors {
	struct ct_cuda_errors_result result;
	struct ct_context *ctx; /* borrowed */
	int slot;               /* per process: its struct last_launch, owned by launches */
	GPtrArray *launches;    /* struct last_launch (owned) */
};

static struct last_launch *launch_of(struct cuda_errors *c, struct ct_process *process)
{
	struct last_launch *l = process->slot[c->slot];

	if (!l) {
		l = g_new0(struct last_launch, 1);
		l->process = process;
		g_ptr_array_add(c->launches, l);
		process->slot[c->slot] = l;
	}
	return l;
}

/* A launch or a graph launch. */
static void on_launch(struct cuda_errors *c, const struct ct_event *ev)
{
	struct last_launch *l = launch_of(c, ev->process);
	const struct ct_api_ref *api =
	    ev->type == CT_EV_LAUNCH ? &ev->u.launch.api : &ev->u.graph_launch.api;

	l->known = true;
	l->graph = ev->type == CT_EV_GRAPH_LAUNCH;
	l->kernel_id = l->graph ? 0 : ev->u.launch.kernel_id;
	l->time_ns = ev->time_ns;
	l->at = (struct call_at){ ev->site, *api, ev->thread->op_stack_id };
}

/* Where AT was made, interned; NULL when the trace cannot say. */
static const char *site_text(struct cuda_errors *c, struct ct_process *process,
                             const struct call_at *at)
{
	char site[1024];

	ct_call_site_format(c->ctx, process, at->path, &at->api, at->stack_id, site, sizeof(site));
	return site[0] ? g_string_chunk_insert_const(c->result.strings, site) : NULL;
}

/* S's kernel: the last launch of PROCESS before the error, named (its site at the end). */
static void kernel_of(struct cuda_errors *c, struct ct_process *process, struct ct_cuda_sticky *s)
{
	struct last_launch *l = process->slot[c->slot];
	const char *name;
	char *demangled;

	if (!l || !l->known)
		return;
	s->graph = l->graph;
	s->launch_time_ns = l->time_ns;
	if (!l->graph) {
		name = ct_context_kernel_name(process, l->kernel_id);
		demangled = ct_demangle(name);
		if (demangled || name)
			s->kernel = g_string_chunk_insert_const(c->result.strings,
			                                        demangled ? demangled : name);
		free(demangled);
	}
	l->sticky_launch_at = l->at;
	l->sticky_launched = true;
}

/* EV, a failed call, is the last of its process (L's) so far. */
static void note_failed(struct cuda_errors *c, struct last_launch *l, const struct ct_event *ev)
{
	const struct ct_ev_api_call *call = &ev->u.api_call;
	const char *api = ct_context_api_name(ev->process, call->domain, call->cbid);
	struct ct_cuda_failed_call *f;

	if (!l->failed) {
		g_array_set_size(c->result.failed_calls, c->result.failed_calls->len + 1);
		l->failed = c->result.failed_calls->len;
	}
	f = &g_array_index(c->result.failed_calls, struct ct_cuda_failed_call, l->failed - 1);
	*f = (struct ct_cuda_failed_call){
		.pid = ev->process->pid,
		.time_ns = ev->time_ns,
		.domain = (uint8_t)call->domain,
		.code = call->result,
		.error = ct_cuda_error_name(call->domain, call->result),
		.api = g_string_chunk_insert_const(c->result.strings, api ? api : ""),
	};
	l->failed_at = (struct call_at){ ev->site,
		                         { .domain = (uint8_t)call->domain,
		                           .cbid = call->cbid,
		                           .correlation_id = call->correlation_id,
		                           .entry = call->entry },
		                         call->correlation_id == l->refused_correlation_id &&
		                                 l->refused_stack_id
		                             ? l->refused_stack_id
		                             : ev->thread->op_stack_id };
}

/* An allocation refused: its stack, for its call's api_call to come. */
static void on_refused(struct cuda_errors *c, const struct ct_event *ev)
{
	struct last_launch *l = launch_of(c, ev->process);

	l->refused_correlation_id = ev->u.mem_alloc_failed.api.correlation_id;
	l->refused_stack_id = ev->u.mem_alloc_failed.stack_id;
}

static void on_api_call(struct cuda_errors *c, const struct ct_event *ev)
{
	struct last_launch *l;
	unsigned domain = ev->u.api_call.domain;
	int32_t code = ev->u.api_call.result;
	struct ct_cuda_sticky s = { 0 };
	const char *api;

	if (!ct_result_is_failure(code) || ev->before_window)
		return;
	l = launch_of(c, ev->process);
	note_failed(c, l, ev);
	if (l->sticky) {
		g_array_index(c->result.sticky, struct ct_cuda_sticky, l->sticky - 1)
		    .failed_after++;
		return;
	}
	if (!ct_cuda_error_is_sticky(domain, code))
		return;
	api = ct_context_api_name(ev->process, domain, ev->u.api_call.cbid);
	s.pid = ev->process->pid;
	s.process = g_string_chunk_insert_const(c->result.strings, ev->process->procname);
	s.time_ns = ev->time_ns;
	s.domain = (uint8_t)domain;
	s.code = code;
	s.error = sticky_name(domain, code);
	s.api = g_string_chunk_insert_const(c->result.strings, api ? api : "");
	kernel_of(c, ev->process, &s);
	g_array_append_val(c->result.sticky, s);
	l->sticky = c->result.sticky->len;
	l->sticky_at = l->failed_at;
}

static void cuda_errors_event(void *state, const struct ct_event *ev)
{
	if (ev->type == CT_EV_API_CALL)
		on_api_call(state, ev);
	else if (ev->type == CT_EV_MEM_ALLOC_FAILED)
		on_refused(state, ev);
	else if (!ev->before_window)
		on_launch(state, ev);
}

static enum ct_analysis_status cuda_errors_finish(void *state, int64_t end_ns)
{
	struct cuda_errors *c = state;

	(void)end_ns;
	/* where each sticky error and last failed call was made: once, at the end */
	for (guint i = 0; i < c->launches->len; i++) {
		const struct last_launch *l = g_ptr_array_index(c->launches, i);
		struct ct_cuda_failed_call *f;

		if (l->sticky) {
			struct ct_cuda_sticky *s =
			    &g_array_index(c->result.sticky, struct ct_cuda_sticky, l->sticky - 1);

			s->site = site_text(c, l->process, &l->sticky_at);
			if (l->sticky_launched)
				s->launch_site = site_text(c, l->process, &l->sticky_launch_at);
		}
		if (!l->failed)
			continue;
		f = &g_array_index(c->result.failed_calls, struct ct_cuda_failed_call,
		                   l->failed - 1);
		f->before_end_ns = l->process->last_ns - f->time_ns;
		f->site = site_text(c, l->process, &l->failed_at);
	}
	return CT_ANALYSIS_OK;
}

static enum ct_analysis_status cuda_errors_result(void *state, const void **result)
{
	struct cuda_errors *c = state;

	*result = &c->result;
	return CT_ANALYSIS_OK;
}

static void write_section(struct ct_doc *doc, const struct ct_result *results, size_t count)
{
	const struct ct_cuda_errors_result *r =
	    ct_result_of(results, count, CT_ANALYSIS_CUDA_ERRORS);

	ct_doc_array(doc, "sticky_errors", "Sticky CUDA errors (the context unusable after them)");
	for (guint i = 0; i < r->sticky->len; i++) {
		const struct ct_cuda_sticky *s =
		    &g_array_index(r->sticky, struct ct_cuda_sticky, i);

		ct_doc_object(doc, NULL, NULL);
		ct_doc_i64(doc, "pid", s->pid, CT_UNIT_ID);
		ct_doc_string(doc, "process", s->process);
		ct_doc_i64(doc, "time_ns", s->time_ns, CT_UNIT_TIME);
		ct_doc_string(doc, "api", s->api[0] ? s->api : NULL);
		ct_doc_string(doc, "site", s->site);
		ct_doc_i64(doc, "code", s->code, CT_UNIT_NONE);
		ct_doc_string(doc, "error", s->error);
		ct_doc_u64(doc, "failed_after", s->failed_after, CT_UNIT_NONE);
		ct_doc_string(doc, "kernel", s->kernel);
		ct_doc_bool(doc, "graph", s->graph);
		if (s->kernel || s->graph)
			ct_doc_i64(doc, "launch_time_ns", s->launch_time_ns, CT_UNIT_TIME);
		else
			ct_doc_null(doc, "launch_time_ns");
		ct_doc_string(doc, "launch_site", s->launch_site);
		ct_doc_end(doc);
	}
	ct_doc_end(doc);
}

const struct ct_section_class ct_cuda_errors_section = {
	.name = "sticky_errors",
	.write = write_section,
};

static enum ct_analysis_status cuda_errors_create(struct ct_context *ctx,
                                                  const struct ct_options *opts, void **state)
{
	struct cuda_errors *c = g_new0(struct cuda_errors, 1);

	(void)opts;
	*state = c;
	c->ctx = ctx;
	c->result.sticky = g_array_new(FALSE, TRUE, sizeof(struct ct_cuda_sticky));
	c->result.failed_calls = g_array_new(FALSE, TRUE, sizeof(struct ct_cuda_failed_call));
	c->result.strings = g_string_chunk_new(256);
	c->launches = g_ptr_array_new_with_free_func(g_free);
	c->slot = ct_analysis_slot(ctx);
	return c->slot < 0 ? CT_ANALYSIS_NO_SLOT : CT_ANALYSIS_OK;
}

static void cuda_errors_destroy(void *state)
{
	struct cuda_errors *c = state;

	if (!c)
		return;
	g_array_free(c->result.sticky, TRUE);
	g_array_free(c->result.failed_calls, TRUE);
	g_string_chunk_free(c->result.strings);
	g_ptr_array_free(c->launches, TRUE);
	g_free(c);
}

const struct ct_analysis_class ct_cuda_errors_analysis = {
	.name = "errors",
	.id = CT_ANALYSIS_CUDA_ERRORS,
	.section = &ct_cuda_errors_section,
	.wants = CT_EV_BIT(CT_EV_API_CALL) | CT_EV_BIT(CT_EV_LAUNCH) |
	         CT_EV_BIT(CT_EV_GRAPH_LAUNCH) | CT_EV_BIT(CT_EV_MEM_ALLOC_FAILED),
	.create = cuda_errors_create,
	.event = cuda_errors_event,
	.finish = cuda_errors_finish,
	.result = cuda_errors_result,
	.destroy = cuda_errors_destroy,
};
