/* SPDX-License-Identifier: MIT */
/*
 * state.c - the tracer's process-wide state (state.h). Data only: this
 * module calls no other, so that every module can read it without a
 * dependency cycle.
 */
#include "state.h"

bool tracer_running;

struct config config = CONFIG_DEFAULTS;

struct tracer_state tracer;
