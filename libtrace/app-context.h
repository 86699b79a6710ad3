/* SPDX-License-Identifier: MIT */
/*
 * app-context.h - the LTTng-UST application context $app.cudatrace:session,
 * whose value is the environment variable CUDATRACE_SESSION. Children
 * inherit the variable, so that a session can record a process tree from
 * its first event with a filter, and no PID tracker:
 *
 *     lttng enable-event -u 'cudatrace:*' \
 *             --filter '$app.cudatrace:session == "NAME"'
 */
#ifndef CUDATRACE_APP_CONTEXT_H
#define CUDATRACE_APP_CONTEXT_H

/* Read CUDATRACE_SESSION and register the context provider with
 * lttng-ust, before the first event; done once, whoever calls first.
 * Returns 0, or -1 when lttng-ust refused it. */
int app_context_register(void);

/*
 * The same, for the functions a program calls into this library itself
 * (cells.c, python-probe.c), perhaps before CUDA is initialised: a refusal
 * is said once, naming WHAT ("cells") is then not recorded.
 */
void app_context_ensure(const char *what);

/* The context's value: CUDATRACE_SESSION as read, or NULL when unset. */
const char *app_context_session(void);

#endif /* CUDATRACE_APP_CONTEXT_H */
