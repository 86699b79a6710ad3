/* SPDX-License-Identifier: MIT */
/*
 * periodic.h - a thread of cudatrace that runs a function at a fixed
 * period until it is stopped: the activity flusher, the NVML sampler and
 * the session watcher.
 */
#ifndef CUDATRACE_PERIODIC_H
#define CUDATRACE_PERIODIC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct periodic {
	void (*tick)(void);
	uint32_t period_ms;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool running;
	bool stop;
	bool kicked; /* periodic_kick: tick now */
};

#define PERIODIC_INIT(fn)                                       \
	{                                                       \
		.tick = (fn), .lock = PTHREAD_MUTEX_INITIALIZER \
	}

/* Start the thread: tick() runs every period_ms, without the lock held,
 * first period_ms from now. Nothing happens for a period of 0, or when it
 * runs already. The thread blocks every signal: the program's signals are
 * not for it. Returns 0, or -1 when the thread cannot be created. */
int periodic_start(struct periodic *p, uint32_t period_ms);

/* Have the thread tick now rather than at its next deadline (its period
 * then starts again), without waiting for the tick nor for its lock: what
 * a caller on the program's own path may do; when the thread holds the
 * lock, the tick may wait for its deadline. Nothing when it does not run. */
void periodic_kick(struct periodic *p);

/* Stop the thread and wait for it (a tick in progress ends first). */
void periodic_stop(struct periodic *p);

#endif /* CUDATRACE_PERIODIC_H */
