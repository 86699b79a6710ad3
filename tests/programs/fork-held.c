/* SPDX-License-Identifier: MIT */
/*
 * fork-held.c - fork(2) while another thread holds lttng-ust's mutexes, as
 * one of lttng-ust's listener threads does while it carries out a session
 * daemon's command, for tests/trace/fork-held.sh. The child then leaves
 * through exit(3), which runs lttng-ust's destructor; it takes lttng-ust's
 * global mutex, which a child forked unguarded inherits held by no one.
 *
 *   fork-held
 *
 * The holder takes the mutexes through lttng-ust's own public
 * lttng_ust_before_fork() (<lttng/ust-fork.h>), in the process's copy of
 * liblttng-ust that the tracer loaded, and lets them go 300 ms later with
 * lttng_ust_after_fork_parent(). The main thread forks while they are
 * held and waits 10 s at most for the child. Prints "child=PID status=S"
 * and exits 0 when the child exited; "child=PID hung" (the child is
 * killed) and exits 1 when it did not; exits 2 when the process has no
 * lttng-ust (it is not traced).
 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt-check.h"

#define HOLD_MS       300
#define CHILD_WAIT_MS 10000

typedef void (*ust_fork_fn)(sigset_t *);

static ust_fork_fn before_fork, after_fork_parent;
static sem_t held;

static void sleep_ms(long ms)
{
	struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };

	while (nanosleep(&t, &t) != 0)
		;
}

static void *holder(void *arg)
{
	sigset_t saved;

	(void)arg;
	before_fork(&saved);
	sem_post(&held);
	sleep_ms(HOLD_MS);
	after_fork_parent(&saved);
	return NULL;
}

int main(void)
{
	pthread_t thread;
	void *ust;
	pid_t child;
	int status;

	/* The tracer comes in at CUDA's initialisation. */
	if (rt_check("fork-held", cudaFree(0), "cudaFree(0)"))
		return 1;
	ust = dlopen("liblttng-ust.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!ust) {
		fprintf(stderr, "fork-held: no liblttng-ust.so.1 in the process: not traced\n");
		return 2;
	}
	before_fork = (ust_fork_fn)dlsym(ust, "lttng_ust_before_fork");
	after_fork_parent = (ust_fork_fn)dlsym(ust, "lttng_ust_after_fork_parent");
	if (!before_fork || !after_fork_parent) {
		fprintf(stderr, "fork-held: liblttng-ust.so.1 lacks its fork functions\n");
		return 2;
	}
	sem_init(&held, 0, 0);
	if (pthread_create(&thread, NULL, holder, NULL) != 0)
		return 1;
	while (sem_wait(&held) != 0)
		;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0)
		exit(0);
	for (int waited = 0; waited < CHILD_WAIT_MS; waited += 10) {
		if (waitpid(child, &status, WNOHANG) == child) {
			printf("child=%d status=%d\n", (int)child,
			       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
			pthread_join(thread, NULL);
			return 0;
		}
		sleep_ms(10);
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	printf("child=%d hung\n", (int)child);
	pthread_join(thread, NULL);
	return 1;
}
