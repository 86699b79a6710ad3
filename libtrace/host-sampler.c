/* SPDX-License-Identifier: MIT */
/*
 * host-sampler.c - the host memory sampler (host-sampler.h). Each sample
 * reads /proc/self/status and, for the limit, the memory cgroup the
 * process is in now (host/cgroup.h): the program may move between
 * cgroups, and the files are small. All of it on the sampler's thread.
 */
#include <stdbool.h>
#include <unistd.h>

#include "../host/cgroup.h"
#include "../host/host-memory.h"
#include "cudatrace-tp.h"
#include "host-sampler.h"
#include "periodic.h"
#include "state.h"

static void sample(void);

static struct periodic sampler = PERIODIC_INIT(sample);

static void sample(void)
{
	struct ct_ev_host_memory e = { .limit_of = CT_HOST_LIMIT_UNKNOWN };
	struct cgroup_memory cg;

	if (!lttng_ust_tracepoint_enabled(cudatrace, host_memory))
		return;
	if (host_memory_rss(getpid(), &e.rss, &e.rss_peak) < 0)
		return;
	if (cgroup_memory_of(getpid(), &cg) == 0 && cg.limit_known) {
		e.limit = cg.limit_bytes;
		e.limit_of = CT_HOST_LIMIT_CGROUP;
	} else {
		e.limit = host_memory_total();
		if (e.limit)
			e.limit_of = CT_HOST_LIMIT_MACHINE;
	}
	lttng_ust_do_tracepoint(cudatrace, host_memory, &e);
}

void host_sampler_start(uint32_t period_ms)
{
	(void)periodic_start(&sampler, period_ms);
}

void host_sampler_kick(void)
{
	/* A forked child has the sampler's state but not its thread. */
	if (getpid() == tracer.pid)
		periodic_kick(&sampler);
}

void host_sampler_stop(void)
{
	bool was_running = sampler.running;

	periodic_stop(&sampler);
	if (was_running)
		sample();
}
