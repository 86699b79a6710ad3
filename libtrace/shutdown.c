/* SPDX-License-Identifier: MIT */
/*
 * shutdown.c - the flush at exit (shutdown.h).
 *
 * exit() runs the atexit handlers in the thread that calls it, one at a
 * time, taking each off the list before it runs; a second thread that
 * calls exit() meanwhile (two threads failing a checkCudaErrors at once)
 * takes the next handlers and ends the process with _exit() when the list
 * is empty, however far the first thread is in its handler. So the flush
 * is one handler, and a second one, registered just before it (so run
 * just after it, by whichever thread takes it off the list), waits until
 * the flush is done: no thread can reach _exit() before.
 *
 * The flush itself (the periodic threads stopped and joined, the activity
 * kinds disabled, CUPTI's buffers forced back) runs on a thread of its
 * own, and the first exiting thread waits for it for SHUTDOWN_FLUSH_MS at
 * most: CUPTI or a joined thread that hangs cannot keep the program from
 * exiting. When the time runs out, that thread says so (a tracer_error);
 * the other exiting threads wait for that too, SHUTDOWN_REPORT_MS more at
 * most.
 *
 * Before the flush, the exit gate (exit-gate.h) lets the other threads'
 * calls under way end and keeps them from beginning new ones, so that
 * the process does not end inside a call the trace would miss.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "activity.h"
#include "exit-gate.h"
#include "log.h"
#include "host-sampler.h"
#include "nvml.h"
#include "sessions.h"
#include "repeats.h"
#include "shutdown.h"
#include "state.h"
#include "statedump.h"
#include "tracer.h"

/* How long the other exiting threads wait, past the flush's deadline,
 * for the first one to say that it gave up. */
#define SHUTDOWN_REPORT_MS 1000

enum shutdown_state {
	SHUTDOWN_IDLE,      /* no exit yet */
	SHUTDOWN_FLUSHING,  /* the flush thread runs */
	SHUTDOWN_DONE,      /* flushed, or nothing to flush */
	SHUTDOWN_ABANDONED, /* not flushed in time, and said so */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed;
static enum shutdown_state state; /* under lock */
static struct timespec deadline;  /* of the flush, CLOCK_MONOTONIC */

static void add_ms(struct timespec *t, unsigned ms)
{
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static void deadline_in(struct timespec *t, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	add_ms(t, ms);
}

static void set_state(enum shutdown_state s)
{
	pthread_mutex_lock(&lock);
	state = s;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

/* Under the lock: wait until the state is one of states (a bit each), or
 * the time is past until. Returns the state. */
static enum shutdown_state wait_for(unsigned states, const struct timespec *until)
{
	while (!(states & 1u << state) &&
	       pthread_cond_timedwait(&changed, &lock, until) != ETIMEDOUT)
		;
	return state;
}

/* The first exiting thread: until the flush is done or its deadline.
 * Returns whether it is done. */
static bool wait_flushed(void)
{
	bool flushed;

	pthread_mutex_lock(&lock);
	flushed = wait_for(1u << SHUTDOWN_DONE, &deadline) == SHUTDOWN_DONE;
	pthread_mutex_unlock(&lock);
	return flushed;
}

/* The other exiting threads: until the flush is done or the first thread
 * has said that it gave up, SHUTDOWN_REPORT_MS past the flush's deadline
 * at most (from now, if the first thread has not started it yet). */
static void wait_end(void)
{
	struct timespec until;

	pthread_mutex_lock(&lock);
	if (state == SHUTDOWN_IDLE)
		deadline_in(&until, SHUTDOWN_FLUSH_MS);
	else
		until = deadline;
	add_ms(&until, SHUTDOWN_REPORT_MS);
	wait_for(1u << SHUTDOWN_DONE | 1u << SHUTDOWN_ABANDONED, &until);
	pthread_mutex_unlock(&lock);
}

static void flush(void)
{
	sessions_watch_stop();
	statedump_stop();
	nvml_sampler_stop();
	host_sampler_stop();
	activity_stop();
}

static void *flush_thread(void *unused)
{
	(void)unused;
	flush();
	set_state(SHUTDOWN_DONE);
	return NULL;
}

/* Runs first, in the first thread to exit. */
static void at_exit_flush(void)
{
	pthread_attr_t attr;
	sigset_t all, saved;
	pthread_t thread;
	char message[160];
	unsigned under_way;
	int started;

	/* A forked child inherits this handler but not CUPTI's threads:
	 * flushing there would hang (HPCToolkit#195). */
	if (getpid() != tracer.pid)
		return;
	if (!tracer_active()) {
		set_state(SHUTDOWN_DONE);
		return;
	}
	pthread_mutex_lock(&lock);
	if (state != SHUTDOWN_IDLE) {
		pthread_mutex_unlock(&lock);
		return;
	}
	state = SHUTDOWN_FLUSHING;
	deadline_in(&deadline, SHUTDOWN_FLUSH_MS);
	pthread_mutex_unlock(&lock);
	/* the other threads' calls ended, or kept from starting */
	under_way = exit_gate_close();
	if (under_way) {
		snprintf(message, sizeof(message),
		         "%u traced call%s of other threads had not returned %d ms after exit() "
		         "began: what %s did may be missing from the trace",
		         under_way, under_way == 1 ? "" : "s", EXIT_GATE_DRAIN_MS,
		         under_way == 1 ? "it" : "they");
		tracer_report(LOG_WARN, CT_TRACER_ERROR_EXIT_CALLS, (int32_t)under_way, message);
	}
	/* the threads' repeats before their operations' records */
	repeats_flush_all();
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	started = pthread_create(&thread, &attr, flush_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	pthread_attr_destroy(&attr);
	if (started != 0) {
		/* No thread to spare: here, unbounded. */
		flush_thread(NULL);
		return;
	}
	if (wait_flushed())
		return;
	snprintf(message, sizeof(message),
	         "the flush at exit did not end within %d ms: the GPU records of %u activity "
	         "buffers not handed back are lost",
	         SHUTDOWN_FLUSH_MS, activity_buffers_out());
	tracer_report(LOG_WARN, CT_TRACER_ERROR_ACTIVITY, (int32_t)activity_buffers_out(), message);
}

/* Runs right after at_exit_flush, in whichever thread takes it off the
 * list: a second thread's exit() waits here for the first one's flush. */
static void at_exit_wait(void)
{
	if (getpid() != tracer.pid)
		return;
	/* the handlers this thread runs next may call CUDA */
	exit_gate_exempt_self();
	wait_end();
}

int shutdown_register(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&changed, &attr);
	pthread_condattr_destroy(&attr);
	/* Handlers run last registered first: at_exit_wait right after
	 * at_exit_flush. */
	if (atexit(at_exit_wait) != 0 || atexit(at_exit_flush) != 0)
		return -1;
	return 0;
}
