/* SPDX-License-Identifier: MIT */
/*
 * test-shutdown.c - the flush at exit (libtrace/shutdown.c): two threads
 * that call exit() at once, in a child process set up as the library is,
 * with CUPTI faked here. The process does not end before the flush has,
 * which runs once; a flush that hangs keeps it SHUTDOWN_FLUSH_MS at most,
 * and a tracer_error says so; an untraced process flushes nothing.
 *
 * The child tells the parent what happened through a pipe: 'F' when the
 * forced flush ends, 'E' for a tracer_error.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <cupti.h>

#include "activity.h"
#include "cudatrace-tp.h"
#include "libtrace-test.h"
#include "shutdown.h"
#include "state.h"

static int report_fd = -1;
static int flush_ms; /* how long the forced flush takes; < 0: for ever */

static void report(char what)
{
	if (write(report_fd, &what, 1) != 1)
		_exit(3);
}

/* ------------------------------------------------------------ fake CUPTI */

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
	if (!(flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED))
		return CUPTI_SUCCESS;
	if (flush_ms < 0) {
		for (;;)
			pause();
	}
	usleep((useconds_t)flush_ms * 1000);
	report('F');
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                       CUpti_CallbackDomain domain)
{
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind)
{
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                          const char **name)
{
	return CUPTI_ERROR_INVALID_PARAMETER;
}

/* ------------------------------------------------------------ the child */

static void on_tracer_error(void *data, const struct ct_ev_tracer_error *e)
{
	if (e->kind == CT_TRACER_ERROR_ACTIVITY)
		report('E');
}

static pthread_barrier_t both;

static void *exit_now(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&both);
	exit(0);
}

/* Set up as inject.c does (no periodic thread), then two threads exit. */
static void child(bool traced)
{
	pthread_t threads[2];

	config.flush_period_ms = 0;
	config.session_poll_ms = 0;
	config.nvml_period_ms = 0;
	config.statedump_period_ms = 0;
	tracer.pid = getpid();
	tracer.subscriber = (CUpti_SubscriberHandle)&tracer;
	tracer_set_running(true);
	if (activity_start() != 0)
		_exit(4);
	tracer_set_running(traced);
	TP_ENABLE(tracer_error, on_tracer_error);
	if (shutdown_register() != 0)
		_exit(5);
	pthread_barrier_init(&both, NULL, 2);
	for (int i = 0; i < 2; i++) {
		if (pthread_create(&threads[i], NULL, exit_now, NULL) != 0)
			_exit(6);
	}
	for (;;)
		pause();
}

struct outcome {
	char said[16];
	double seconds;
	int status;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static struct outcome run(int flush_for_ms, bool traced)
{
	struct outcome o = { "", 0, -1 };
	double start = now_s();
	size_t n = 0;
	int fds[2];
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		report_fd = fds[1];
		flush_ms = flush_for_ms;
		child(traced);
	}
	close(fds[1]);
	/* Until the child's end closes the pipe. */
	while (n < sizeof(o.said) - 1 && read(fds[0], &o.said[n], 1) == 1)
		n++;
	o.said[n] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &o.status, 0), pid);
	o.seconds = now_s() - start;
	return o;
}

/* The flush takes a while: the process waits for it, whichever thread
 * ran it, and it ran once. */
static void test_both_wait_for_the_flush(void **state)
{
	(void)state;
	for (int i = 0; i < 5; i++) {
		struct outcome o = run(300, true);

		assert_true(WIFEXITED(o.status));
		assert_int_equal(WEXITSTATUS(o.status), 0);
		assert_string_equal(o.said, "F");
		assert_true(o.seconds >= 0.3);
	}
}

/* A flush that never ends: the process exits SHUTDOWN_FLUSH_MS later,
 * and says what it could not flush. */
static void test_bounded(void **state)
{
	struct outcome o = run(-1, true);

	(void)state;
	assert_true(WIFEXITED(o.status));
	assert_int_equal(WEXITSTATUS(o.status), 0);
	assert_string_equal(o.said, "E");
	assert_true(o.seconds >= SHUTDOWN_FLUSH_MS / 1000.0);
	assert_true(o.seconds < SHUTDOWN_FLUSH_MS / 1000.0 + 5);
}

/* A process that no longer traces flushes nothing, and exits at once. */
static void test_untraced(void **state)
{
	struct outcome o = run(-1, false);

	(void)state;
	assert_true(WIFEXITED(o.status));
	assert_string_equal(o.said, "");
	assert_true(o.seconds < SHUTDOWN_FLUSH_MS / 1000.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_both_wait_for_the_flush),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_untraced),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("shutdown", tests, NULL, NULL);
}
