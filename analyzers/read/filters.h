/* SPDX-License-Identifier: MIT */
/*
 * filters.h - which events a report looks at: process, device, time window
 * and NVTX range (struct ct_options). The reader asks for a verdict on
 * every event after the context is updated (so NVTX stacks stay right
 * whatever is filtered out) and before the analyses see it.
 */
#ifndef CUDATRACE_ANALYZERS_FILTERS_H
#define CUDATRACE_ANALYZERS_FILTERS_H

#include "model/context.h"
#include "common/event.h"
#include "common/options.h"

enum ct_filter_verdict {
	CT_FILTER_KEEP = 0,
	CT_FILTER_DROP,
	/* before the time window: delivered with before_window set (what live bytes need) */
	CT_FILTER_BEFORE,
};

struct ct_filter {
	const struct ct_options *opts; /* borrowed */
	bool window_resolved;          /* relative bounds made absolute */
	int64_t from_ns, to_ns;        /* absolute window, INT64_MIN/MAX when open */
};

void ct_filter_init(struct ct_filter *filter, const struct ct_options *opts);
/*
 * Makes relative bounds absolute from the first event's time; called once,
 * by the reader. 0, or -1 when the window then ends before it starts (an
 * absolute bound and a relative one: the command line could not tell).
 */
int ct_filter_start(struct ct_filter *filter, int64_t first_ns);
/* The verdict for EV (its process, thread and site already set). */
enum ct_filter_verdict ct_filter_event(struct ct_filter *filter, const struct ct_context *ctx,
                                       const struct ct_event *ev);
/* 1 when no filter is set at all (the reader then skips ct_filter_event). */
int ct_filter_is_empty(const struct ct_filter *filter);

#endif
