/* SPDX-License-Identifier: MIT */
/*
 * libtrace-test.h - what the cmocka tests of libtrace share.
 *
 * stderr: what libtrace writes to file descriptor 2 (log.c) during a call,
 * captured.
 *
 * Tracepoints: lttng-ust tells libtrace that a session enables an event
 * through the state of its tracepoint, and calls the probes it lists.
 * TP_ENABLE sets both as a session would, with a probe of the test's,
 * so that a test sees what libtrace emits without any session daemon:
 *
 *     static void on_api_name(void *data, const struct ct_ev_api_name *e);
 *     TP_ENABLE(api_name, on_api_name);
 *     ...
 *     TP_DISABLE(api_name);
 *
 * (The test links cudatrace-tp.o, which registers the provider, and
 * lttng-ust; with no session daemon, lttng-ust never touches the state.)
 */
#ifndef CUDATRACE_LIBTRACE_TEST_H
#define CUDATRACE_LIBTRACE_TEST_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct stderr_capture {
	int saved;
	FILE *file;
	char text[8192];
};

static inline void stderr_capture_begin(struct stderr_capture *c)
{
	fflush(stderr);
	c->saved = dup(STDERR_FILENO);
	c->file = tmpfile();
	if (c->saved >= 0 && c->file)
		dup2(fileno(c->file), STDERR_FILENO);
}

/* Restore stderr; what was written is in c->text. Returns its lines. */
static inline int stderr_capture_end(struct stderr_capture *c)
{
	size_t n = 0;
	int lines = 0;

	c->text[0] = '\0';
	if (c->saved < 0 || !c->file)
		return -1;
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	rewind(c->file);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->file);
	c->text[n] = '\0';
	fclose(c->file);
	for (size_t i = 0; i < n; i++)
		lines += c->text[i] == '\n';
	return lines;
}

#ifdef CUDATRACE_TP_H
#define TP(event) lttng_ust_tracepoint_cudatrace___##event

#define TP_ENABLE(event, probe)                                                    \
	do {                                                                       \
		static struct lttng_ust_tracepoint_probe tp_probes_[2];            \
		tp_probes_[0].func = (void (*)(void))(probe);                      \
		__atomic_store_n(&TP(event).probes, tp_probes_, __ATOMIC_RELEASE); \
		__atomic_store_n(&TP(event).state, 1, __ATOMIC_RELEASE);           \
	} while (0)

#define TP_DISABLE(event)                                                    \
	do {                                                                 \
		__atomic_store_n(&TP(event).state, 0, __ATOMIC_RELEASE);     \
		__atomic_store_n(&TP(event).probes, NULL, __ATOMIC_RELEASE); \
	} while (0)
#endif

#endif /* CUDATRACE_LIBTRACE_TEST_H */
