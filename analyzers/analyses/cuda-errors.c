/* SPDX-License-Identifier: MIT */
/*
 * cuda-errors.c - the sticky CUDA errors analysis (cuda-errors.h): the
 * first failed call (api_call) of each process whose result is one of the errors that
 * leave its CUDA context unusable, and the failed calls after it.
 *
 * Memory: one entry per process that got such an error.
 */
#include <string.h>

#include "analysis.h"
#include "cuda-errors.h"

/*
 * The codes cuda.h and driver_types.h describe as leaving the process in
 * an inconsistent state, where any further CUDA work returns the same
 * error; the two enums give them the same values.
 */
static const struct {
	int32_t code;
	const char *driver, *runtime;
} sticky_codes[] = {
	{ 226, "CUDA_ERROR_CONTAINED", "cudaErrorContained" },
	{ 700, "CUDA_ERROR_ILLEGAL_ADDRESS", "cudaErrorIllegalAddress" },
	{ 702, "CUDA_ERROR_LAUNCH_TIMEOUT", "cudaErrorLaunchTimeout" },
	{ 714, "CUDA_ERROR_HARDWARE_STACK_ERROR", "cudaErrorHardwareStackError" },
	{ 715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "cudaErrorIllegalInstruction" },
	{ 716, "CUDA_ERROR_MISALIGNED_ADDRESS", "cudaErrorMisalignedAddress" },
	{ 717, "CUDA_ERROR_INVALID_ADDRESS_SPACE", "cudaErrorInvalidAddressSpace" },
	{ 718, "CUDA_ERROR_INVALID_PC", "cudaErrorInvalidPc" },
	{ 719, "CUDA_ERROR_LAUNCH_FAILED", "cudaErrorLaunchFailure" },
	{ 911, "CUDA_ERROR_EXTERNAL_DEVICE", "cudaErrorExternalDevice" },
};

#define N_STICKY (sizeof(sticky_codes) / sizeof(sticky_codes[0]))

/* The name of sticky CODE in DOMAIN, NULL when CODE is not one. */
static const char *sticky_name(unsigned domain, int32_t code)
{
	for (size_t i = 0; i < N_STICKY; i++)
		if (sticky_codes[i].code == code)
			return domain == CT_DOMAIN_DRIVER ? sticky_codes[i].driver
			                                  : sticky_codes[i].runtime;
	return NULL;
}

bool ct_cuda_error_is_sticky(unsigned domain, int32_t code)
{
	return (domain == CT_DOMAIN_DRIVER || domain == CT_DOMAIN_RUNTIME) &&
	       sticky_name(domain, code) != NULL;
}

struct cuda_errors {
	struct ct_cuda_errors_result result;
	int slot; /* per process: 1 + the index of its entry in result.sticky, 0 none */
};

static void on_api_call(struct cuda_errors *c, const struct ct_event *ev)
{
	uintptr_t index = (uintptr_t)ev->process->slot[c->slot];
	unsigned domain = ev->u.api_call.domain;
	int32_t code = ev->u.api_call.result;
	struct ct_cuda_sticky s = { 0 };
	const char *api;

	if (code == 0 || ev->before_window)
		return;
	if (index) {
		g_array_index(c->result.sticky, struct ct_cuda_sticky, index - 1).failed_after++;
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
	g_array_append_val(c->result.sticky, s);
	ev->process->slot[c->slot] = (void *)(uintptr_t)c->result.sticky->len;
}

static void cuda_errors_event(void *state, const struct ct_event *ev)
{
	if (ev->type == CT_EV_API_CALL)
		on_api_call(state, ev);
}

static enum ct_analysis_status cuda_errors_finish(void *state, int64_t end_ns)
{
	(void)state;
	(void)end_ns;
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
		ct_doc_i64(doc, "code", s->code, CT_UNIT_NONE);
		ct_doc_string(doc, "error", s->error);
		ct_doc_u64(doc, "failed_after", s->failed_after, CT_UNIT_NONE);
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
	c->result.sticky = g_array_new(FALSE, TRUE, sizeof(struct ct_cuda_sticky));
	c->result.strings = g_string_chunk_new(256);
	c->slot = ct_analysis_slot(ctx);
	return c->slot < 0 ? CT_ANALYSIS_NO_SLOT : CT_ANALYSIS_OK;
}

static void cuda_errors_destroy(void *state)
{
	struct cuda_errors *c = state;

	if (!c)
		return;
	g_array_free(c->result.sticky, TRUE);
	g_string_chunk_free(c->result.strings);
	g_free(c);
}

const struct ct_analysis_class ct_cuda_errors_analysis = {
	.name = "errors",
	.id = CT_ANALYSIS_CUDA_ERRORS,
	.section = &ct_cuda_errors_section,
	.wants = CT_EV_BIT(CT_EV_API_CALL),
	.create = cuda_errors_create,
	.event = cuda_errors_event,
	.finish = cuda_errors_finish,
	.result = cuda_errors_result,
	.destroy = cuda_errors_destroy,
};
