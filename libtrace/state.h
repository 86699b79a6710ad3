/* SPDX-License-Identifier: MIT */
/*
 * state.h - the tracer's process-wide state, in one leaf module that
 * depends on no other module of libtrace: whether this process traces, its
 * settings, its CUPTI subscription and the tracer_info payload that
 * describes it. inject.c sets it all up once, before any callback can run;
 * the other modules read it from here.
 */
#ifndef CUDATRACE_STATE_H
#define CUDATRACE_STATE_H

#include <stdbool.h>
#include <sys/types.h>
#include <cupti.h>

#include "config.h"
#include "contract/events.h"

/* True while this process traces: subscribed to CUPTI, not a child forked
 * from the process that subscribed, and no invariant found broken. Cheap:
 * every callback asks. */
extern bool tracer_running;

static inline bool tracer_active(void)
{
	return __atomic_load_n(&tracer_running, __ATOMIC_RELAXED);
}

static inline void tracer_set_running(bool running)
{
	__atomic_store_n(&tracer_running, running, __ATOMIC_RELAXED);
}

/* The settings (cudatrace-env(7)): the defaults until inject.c has read
 * the environment, then read-only, so read without locking. */
extern struct config config;

/* What inject.c set up; written once at start-up, before any callback. */
struct tracer_state {
	CUpti_SubscriberHandle subscriber;
	bool subscribed;
	pid_t pid;                     /* the traced process (not a fork of it) */
	uint64_t sample_key;           /* where an upload's sample starts (copy.c); never written */
	struct ct_ev_tracer_info info; /* what tracer_info records */
	char procname[17];             /* /proc/self/comm, info.procname's storage */
};

extern struct tracer_state tracer;

#endif /* CUDATRACE_STATE_H */
