/* SPDX-License-Identifier: MIT */
/*
 * watch.c - faults of LTTng and of the disk while a program is recorded.
 */
#include <stdint.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "session.h"
#include "sessiond.h"
#include "watch.h"

#define MIB (1ull << 20)

static long long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

uint64_t watch_disk_margin(uint64_t subbuf_size, uint64_t num_subbuf)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t buffers =
	    subbuf_size * num_subbuf * (uint64_t)(cpus > 0 ? cpus : 1) * SESSION_DATA_CHANNELS;

	if (buffers < MIB)
		buffers = MIB;
	if (buffers > 64 * MIB)
		buffers = 64 * MIB;
	return buffers + MIB;
}

void watch_init(struct watch *w, const char *output, bool check_disk, uint64_t margin)
{
	*w = (struct watch){ .output = output && *output ? output : NULL,
		             .check_disk = check_disk && output && *output,
		             .disk_margin = margin };
}

uint64_t watch_disk_free(const char *dir)
{
	struct statvfs v;
	uint64_t blocks;

	if (statvfs(dir, &v) != 0)
		return UINT64_MAX;
	/* LTTng's consumer writes as this user: root may use the reserved blocks. */
	blocks = geteuid() == 0 ? v.f_bfree : v.f_bavail;
	return blocks * (uint64_t)v.f_frsize;
}

static enum trace_cut seen(struct watch *w, enum trace_cut fault)
{
	if (fault != TRACE_CUT_NONE) {
		w->fault = fault;
		w->fault_ns = realtime_ns();
	}
	return fault;
}

static bool disk_full(const struct watch *w)
{
	return w->check_disk && watch_disk_free(w->output) < w->disk_margin;
}

enum trace_cut watch_check(struct watch *w)
{
	if (w->fault != TRACE_CUT_NONE)
		return TRACE_CUT_NONE;
	if (!sessiond_alive())
		return seen(w, TRACE_CUT_DAEMON_DIED);
	if (sessiond_consumer_state() == SESSIOND_CONSUMER_DEAD)
		return seen(w, TRACE_CUT_CONSUMER_DIED);
	if (disk_full(w))
		return seen(w, TRACE_CUT_DISK_FULL);
	return TRACE_CUT_NONE;
}

enum trace_cut watch_tick(struct watch *w)
{
	if (w->fault != TRACE_CUT_NONE)
		return TRACE_CUT_NONE;
	if (++w->ticks % WATCH_EVERY == 0)
		return watch_check(w);
	return disk_full(w) ? seen(w, TRACE_CUT_DISK_FULL) : TRACE_CUT_NONE;
}
