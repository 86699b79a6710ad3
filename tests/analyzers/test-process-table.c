/* SPDX-License-Identifier: MIT */
/*
 * test-process-table.c - the context's one table of processes, as the call
 * stacks use it: a process lttng-ust's statedump names before any
 * cudatrace event of it is unlisted, keeps what is noted of it, and is
 * listed, numbered in order of first cudatrace event, when an event names
 * it; one that is never named stays unlisted and is freed with the
 * context. The statedump's procname names a process no cudatrace event
 * names (a worker the Python probe alone speaks for), until one does.
 * A kernel's or a call's name handed out stays while the context lives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/call-stacks.h"
#include "model/context.h"
#include "read/ust-statedump.h"

#define HOST "node1"

/* Stack 5 of P: one native frame, called from Python line 12 of train.py. */
static void add_stack(struct ct_context *ctx, struct ct_process *p)
{
	static const uint64_t frames[] = { 0x1000 };

	ct_call_stacks_add(ct_context_call_stacks(ctx), p, 5, frames, 1, "12\tstep\t/w/train.py\n");
}

static void test_statedump_first(void **state)
{
	struct ct_context *ctx = ct_context_create();
	struct ct_process *dumped, *first, *named;
	char site[128];

	(void)state;
	dumped = ct_context_statedump_process(ctx, HOST, 200);
	assert_false(dumped->listed);
	assert_int_equal(ct_context_process_count(ctx), 0);
	/* its objects and stacks are kept before it is listed */
	ct_call_stacks_add_object(ct_context_call_stacks(ctx), dumped, 0x400000, 0x1000,
	                          "/usr/bin/python3");
	add_stack(ctx, dumped);
	assert_ptr_equal(ct_context_statedump_process(ctx, HOST, 200), dumped);

	first = ct_context_process(ctx, HOST, 100);
	assert_true(first->listed);
	assert_int_equal(first->index, 0);
	named = ct_context_process(ctx, HOST, 200);
	assert_ptr_equal(named, dumped);
	assert_true(named->listed);
	assert_int_equal(named->index, 1);
	assert_int_equal(ct_context_process_count(ctx), 2);
	assert_ptr_equal(ct_context_process_at(ctx, 1), dumped);
	/* a statedump after it was listed goes to the same process */
	assert_ptr_equal(ct_context_statedump_process(ctx, HOST, 200), named);

	assert_non_null(ct_call_stacks_get(named, 5));
	assert_string_equal(ct_stack_site_format(ct_call_stacks_get(named, 5), site, sizeof(site)),
	                    "train.py:12 in step");
	assert_null(ct_call_stacks_get(named, 6));
	assert_null(ct_call_stacks_get(first, 5));
	ct_context_destroy(ctx);
}

/*
 * The statedump's name stands until a cudatrace event's, which stays; each
 * change is counted (what copied the name knows it still holds), and only
 * the changes.
 */
static void test_names(void **state)
{
	struct ct_context *ctx = ct_context_create();
	struct ct_ust_statedump_record rec = {
		.kind = CT_UST_STATEDUMP_PROCNAME,
		.hostname = HOST,
		.pid = 200,
		.procname = "python",
	};
	struct ct_process *p;

	(void)state;
	ct_ust_statedump_apply(&rec, ctx);
	p = ct_context_statedump_process(ctx, HOST, 200);
	assert_string_equal(p->procname, "python");
	assert_int_equal(p->procname_changes, 1);
	/* a later statedump (another session's) does not rename it */
	rec.procname = "pt_main_thread";
	ct_ust_statedump_apply(&rec, ctx);
	assert_string_equal(p->procname, "python");
	/* nothing names nothing */
	ct_process_name(p, NULL, false);
	ct_process_name(p, "", false);
	assert_string_equal(p->procname, "python");
	assert_int_equal(p->procname_changes, 1);
	/* tracer_info's name, or the procname context's, replaces it once */
	ct_process_name(p, "train", false);
	assert_string_equal(p->procname, "train");
	assert_int_equal(p->procname_changes, 2);
	ct_process_name(p, "other", false);
	ct_process_name(p, "python", true);
	assert_string_equal(p->procname, "train");
	assert_int_equal(p->procname_changes, 2);
	ct_context_destroy(ctx);
}

/* The same pid on another host is another process; one the statedump
 * alone names is never listed, and is freed with the context. */
static void test_unlisted_and_hosts(void **state)
{
	struct ct_context *ctx = ct_context_create();
	struct ct_process *a, *b;

	(void)state;
	a = ct_context_statedump_process(ctx, HOST, 300);
	b = ct_context_statedump_process(ctx, "node2", 300);
	assert_ptr_not_equal(a, b);
	add_stack(ctx, a);
	assert_non_null(ct_call_stacks_get(a, 5));
	assert_null(ct_call_stacks_get(b, 5));
	assert_ptr_equal(ct_context_process(ctx, "node2", 300), b);
	assert_int_equal(ct_context_process_count(ctx), 1);
	assert_false(a->listed);
	ct_context_destroy(ctx);
}

/* A kernel_name or api_name event of P naming ID (a kernel, or cbid 7 of the runtime) NAME. */
static void name_event(struct ct_context *ctx, struct ct_process *p, bool kernel, const char *name)
{
	struct ct_event ev = { .type = kernel ? CT_EV_KERNEL_NAME : CT_EV_API_NAME,
		               .time_ns = 1000,
		               .process = p,
		               .thread = ct_context_thread(ctx, p, p->pid) };

	if (kernel)
		ev.u.kernel_name = (struct ct_ev_kernel_name){ .kernel_id = 0xA1,
			                                       .name = name,
			                                       .name_len = (uint32_t)strlen(name) };
	else
		ev.u.api_name = (struct ct_ev_api_name){
			.domain = 2, .cbid = 7, .name = name, .name_len = (uint32_t)strlen(name)
		};
	ct_context_update(ctx, &ev);
}

/*
 * A kernel's or a call's name handed out stays as it is while the context
 * lives, once a later event renames it (the Perfetto export knows a name
 * again by its address: perfetto-writer.h); named again with the same
 * text, it is the same name, so that the names kept do not grow with
 * the events.
 */
static void test_names_stay(void **state)
{
	struct ct_context *ctx = ct_context_create();
	struct ct_process *p = ct_context_process(ctx, HOST, 400);
	const char *kernel, *api;

	(void)state;
	name_event(ctx, p, true, "gemm");
	name_event(ctx, p, false, "cudaFoo");
	kernel = ct_context_kernel_name(p, 0xA1);
	api = ct_context_api_name(p, 2, 7);
	assert_string_equal(kernel, "gemm");
	assert_string_equal(api, "cudaFoo");
	name_event(ctx, p, true, "gemm_v2");
	name_event(ctx, p, false, "cudaBar");
	assert_string_equal(ct_context_kernel_name(p, 0xA1), "gemm_v2");
	assert_string_equal(ct_context_api_name(p, 2, 7), "cudaBar");
	assert_string_equal(kernel, "gemm");
	assert_string_equal(api, "cudaFoo");
	/* named again the same (a module loaded again): nothing replaced, nothing kept */
	kernel = ct_context_kernel_name(p, 0xA1);
	api = ct_context_api_name(p, 2, 7);
	for (int i = 0; i < 3; i++) {
		name_event(ctx, p, true, "gemm_v2");
		name_event(ctx, p, false, "cudaBar");
	}
	assert_ptr_equal(ct_context_kernel_name(p, 0xA1), kernel);
	assert_ptr_equal(ct_context_api_name(p, 2, 7), api);
	ct_context_destroy(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statedump_first),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_unlisted_and_hosts),
		cmocka_unit_test(test_names_stay),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
