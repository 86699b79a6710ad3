/* SPDX-License-Identifier: MIT */
/*
 * periodic.c - a thread that runs a function at a fixed period (see
 * periodic.h). It sleeps on a condition variable of CLOCK_MONOTONIC, so
 * that periodic_stop wakes it at once and a change of the wall clock does
 * not move its deadlines.
 */
#include <signal.h>
#include <time.h>

#include "periodic.h"

static void deadline_after(struct timespec *deadline, uint32_t ms)
{
	clock_gettime(CLOCK_MONOTONIC, deadline);
	deadline->tv_sec += ms / 1000;
	deadline->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (deadline->tv_nsec >= 1000000000L) {
		deadline->tv_sec++;
		deadline->tv_nsec -= 1000000000L;
	}
}

static void *periodic_main(void *arg)
{
	struct periodic *p = arg;
	struct timespec deadline;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		deadline_after(&deadline, p->period_ms);
		while (!p->stop && !__atomic_load_n(&p->kicked, __ATOMIC_ACQUIRE) &&
		       pthread_cond_timedwait(&p->wake, &p->lock, &deadline) == 0)
			;
		if (p->stop)
			break;
		__atomic_store_n(&p->kicked, false, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&p->lock);
		p->tick();
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int periodic_start(struct periodic *p, uint32_t period_ms)
{
	pthread_condattr_t attr;
	sigset_t all, saved;

	if (period_ms == 0 || p->running)
		return 0;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &attr);
	pthread_condattr_destroy(&attr);
	p->period_ms = period_ms;
	p->stop = false;
	p->kicked = false;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	__atomic_store_n(&p->running, pthread_create(&p->thread, NULL, periodic_main, p) == 0,
	                 __ATOMIC_RELEASE);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return p->running ? 0 : -1;
}

void periodic_kick(struct periodic *p)
{
	if (!__atomic_load_n(&p->running, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&p->kicked, true, __ATOMIC_RELEASE);
	/*
	 * Never wait for the lock on the program's path: when the thread
	 * holds it, it is about to look at kicked, or to tick; at worst the
	 * tick comes at its next deadline.
	 */
	if (pthread_mutex_trylock(&p->lock) != 0)
		return;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
}

void periodic_stop(struct periodic *p)
{
	if (!p->running)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	__atomic_store_n(&p->running, false, __ATOMIC_RELEASE);
}
