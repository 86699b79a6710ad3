/* SPDX-License-Identifier: MIT */
/*
 * nvtx-ranges.c - NVTX v3 (header-only) annotations as an application makes
 * them: nested push/pop ranges with ASCII and registered-string messages, a
 * domain, marks, a start/end range, and a second thread with its own ranges.
 *
 * For each NVTX call it prints "# nvtx tid=T name=FUNCTION [message=M]
 * [domain=D]", which tests/sim/check-cupti.py --nvtx compares with what the
 * injection library received through CUPTI's NVTX domain.
 *
 * With --injected (NVTX_INJECTION64_PATH names a tool) it also checks the
 * values push and pop return: the zero-based level of the range
 * (nvToolsExt.h). Without a tool they return NVTX_NO_PUSH_POP_TRACKING.
 */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap.h"

#define DOMAIN_NAME "cudatrace.test"

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static int injected;

static int thread_id(void)
{
	return (int)syscall(SYS_gettid);
}

/* One "# nvtx" line; message and domain may be NULL. */
static void announce(const char *name, const char *message, const char *domain)
{
	pthread_mutex_lock(&print_lock);
	printf("# nvtx tid=%d name=%s", thread_id(), name);
	if (message)
		printf(" message=%s", message);
	if (domain)
		printf(" domain=%s", domain);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&print_lock);
}

/* A push or pop returned level: checked only when a tool is attached. */
static void check_level(const char *what, int got, int want)
{
	pthread_mutex_lock(&print_lock);
	if (injected)
		tap_ok(got == want, "%s returns level %d (got %d)", what, want, got);
	else
		tap_ok(got == want || got == NVTX_NO_PUSH_POP_TRACKING,
		       "%s returns level %d or NVTX_NO_PUSH_POP_TRACKING (got %d)", what, want,
		       got);
	pthread_mutex_unlock(&print_lock);
}

static nvtxEventAttributes_t ascii_attributes(const char *message)
{
	nvtxEventAttributes_t attr;

	memset(&attr, 0, sizeof(attr));
	attr.version = NVTX_VERSION;
	attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	attr.colorType = NVTX_COLOR_ARGB;
	attr.color = 0xff76b900;
	attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
	attr.message.ascii = message;
	return attr;
}

static void *second_thread(void *arg)
{
	(void)arg;
	announce("nvtxRangePushA", "thread-range", NULL);
	check_level("nvtxRangePushA on the second thread", nvtxRangePushA("thread-range"), 0);
	announce("nvtxMarkA", "thread-mark", NULL);
	nvtxMarkA("thread-mark");
	announce("nvtxRangePop", NULL, NULL);
	check_level("nvtxRangePop on the second thread", nvtxRangePop(), 0);
	return NULL;
}

static void domain_ranges(void)
{
	nvtxDomainHandle_t domain;
	nvtxStringHandle_t registered;
	nvtxEventAttributes_t attr;

	announce("nvtxDomainCreateA", DOMAIN_NAME, NULL);
	domain = nvtxDomainCreateA(DOMAIN_NAME);
	announce("nvtxDomainRegisterStringA", "registered-message", DOMAIN_NAME);
	registered = nvtxDomainRegisterStringA(domain, "registered-message");

	attr = ascii_attributes(NULL);
	attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	attr.message.registered = registered;
	announce("nvtxDomainRangePushEx", "registered-message", DOMAIN_NAME);
	check_level("nvtxDomainRangePushEx", nvtxDomainRangePushEx(domain, &attr), 0);

	attr = ascii_attributes("domain-mark");
	announce("nvtxDomainMarkEx", "domain-mark", DOMAIN_NAME);
	nvtxDomainMarkEx(domain, &attr);

	announce("nvtxDomainRangePop", NULL, DOMAIN_NAME);
	check_level("nvtxDomainRangePop", nvtxDomainRangePop(domain), 0);
}

int main(int argc, char **argv)
{
	nvtxEventAttributes_t attr;
	nvtxRangeId_t id;
	pthread_t thread;
	int started;

	injected = argc > 1 && strcmp(argv[1], "--injected") == 0;
	printf("# fact pid=%d main_tid=%d\n", (int)getpid(), thread_id());

	announce("nvtxRangePushA", "outer", NULL);
	check_level("nvtxRangePushA(outer)", nvtxRangePushA("outer"), 0);
	started = pthread_create(&thread, NULL, second_thread, NULL) == 0;
	announce("nvtxRangePushA", "inner", NULL);
	check_level("nvtxRangePushA(inner)", nvtxRangePushA("inner"), 1);
	announce("nvtxMarkA", "mark-a", NULL);
	nvtxMarkA("mark-a");
	announce("nvtxRangePop", NULL, NULL);
	check_level("nvtxRangePop(inner)", nvtxRangePop(), 1);

	domain_ranges();

	announce("nvtxRangeStartA", "start-end", NULL);
	id = nvtxRangeStartA("start-end");
	announce("nvtxRangeEnd", NULL, NULL);
	nvtxRangeEnd(id);

	attr = ascii_attributes("ex-ascii");
	announce("nvtxRangePushEx", "ex-ascii", NULL);
	check_level("nvtxRangePushEx(ex-ascii)", nvtxRangePushEx(&attr), 1);
	announce("nvtxRangePop", NULL, NULL);
	check_level("nvtxRangePop(ex-ascii)", nvtxRangePop(), 1);

	announce("nvtxRangePop", NULL, NULL);
	check_level("nvtxRangePop(outer)", nvtxRangePop(), 0);

	if (started)
		tap_ok(pthread_join(thread, NULL) == 0, "second thread joined");
	else
		tap_ok(0, "second thread started");
	return tap_done();
}
