/* SPDX-License-Identifier: MIT */
/*
 * ust-fork.c - lttng-ust's own state kept whole across fork(2) of the
 * traced process.
 *
 * fork(2) copies only the forking thread. A mutex another thread held at
 * that moment stays held in the child, by no one. lttng-ust's listener
 * threads hold its global mutex while they carry out a session daemon's
 * command; a child forked then, which later calls exit(3), waits forever
 * in lttng-ust's destructor, which takes that mutex.
 *
 * lttng-ust(3), "Using LTTng-UST with daemons": an application that calls
 * fork(2) without a following exec must be started with
 * liblttng-ust-fork.so preloaded. Its fork() brackets the call with
 * lttng_ust_before_fork() (which waits for lttng-ust's threads to let go
 * of its mutexes, and takes them), lttng_ust_after_fork_parent() and
 * lttng_ust_after_fork_child() (which starts lttng-ust afresh in the
 * child: <lttng/ust-fork.h>). A traced program was started without it:
 * lttng-ust came in with the tracer, through CUDA_INJECTION64_PATH. So the
 * tracer makes the same calls, from pthread_atfork(3) handlers.
 *
 * Where liblttng-ust-fork.so is loaded, its fork() makes them already; a
 * second lttng_ust_before_fork() in the same fork would wait on the
 * non-recursive mutex the first one took: then there are no handlers.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <lttng/ust-fork.h>

#include "ust-fork.h"

/* The forking thread's signal mask, which lttng_ust_before_fork() blocks
 * and the after-fork calls restore: per thread, for two threads may fork
 * at once (lttng-ust lets one through at a time, but only after each has
 * saved its mask). The child's one thread is the forking thread's copy. */
static __thread sigset_t ust_fork_sigset;

static void before_fork(void)
{
	lttng_ust_before_fork(&ust_fork_sigset);
}

static void after_fork_parent(void)
{
	lttng_ust_after_fork_parent(&ust_fork_sigset);
}

static void after_fork_child(void)
{
	lttng_ust_after_fork_child(&ust_fork_sigset);
}

/* liblttng-ust-fork.so is loaded: dlopen(3) with RTLD_NOLOAD finds a
 * loaded library by its soname too, whatever name preloaded it. */
static bool ust_fork_library_loaded(void)
{
	void *handle = dlopen("liblttng-ust-fork.so.1", RTLD_LAZY | RTLD_NOLOAD);

	if (!handle)
		return false;
	dlclose(handle);
	return true;
}

int ust_fork_register(void)
{
	if (ust_fork_library_loaded())
		return 0;
	return pthread_atfork(before_fork, after_fork_parent, after_fork_child) == 0 ? 0 : -1;
}
