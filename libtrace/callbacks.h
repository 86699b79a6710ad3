/* SPDX-License-Identifier: MIT */
/*
 * callbacks.h - the CUPTI callback dispatcher.
 */
#ifndef CUDATRACE_CALLBACKS_H
#define CUDATRACE_CALLBACKS_H

#include <cupti.h>

/* Enable, for the subscriber of state.h, the driver and runtime callback
 * ids cudatrace handles, and the RESOURCE, SYNCHRONIZE and NVTX domains.
 * Returns 0, or the CUPTI error that left no callback enabled. */
CUptiResult callbacks_enable(void);

/* Switch off the callback ids whose events no session enables (copies,
 * launches, synchronisations, NVTX ranges and marks), and on again those
 * that one does. Allocations and releases stay on. From one thread at a
 * time, after callbacks_enable. */
void callbacks_follow_sessions(void);

/* The calling thread is about to write an event outside a callback (the
 * Python probe, a fork): the repeats it kept go first (repeats.h). */
void callbacks_flush_thread(void);

/* The subscriber's callback. */
void CUPTIAPI callbacks_dispatch(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *cbdata);

#endif /* CUDATRACE_CALLBACKS_H */
