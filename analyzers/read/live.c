/* SPDX-License-Identifier: MIT */
/*
 * live.c - lttng-live sources (see live.h).
 */
#include <string.h>
#include <time.h>

#include "live.h"

/* How long a pass waits when a live source has nothing yet: short enough to follow the session. */
#define LIVE_WAIT_NS 100000000

bool ct_live_is_url(const char *path)
{
	return !strncmp(path, "net://", 6) || !strncmp(path, "net4://", 7) ||
	       !strncmp(path, "net6://", 7);
}

const char *ct_live_source_class(const char *path)
{
	return ct_live_is_url(path) ? "lttng-live" : "fs";
}

int ct_live_source_params(const char *path, bt_value *params)
{
	if (!ct_live_is_url(path))
		return 0;
	return bt_value_map_insert_string_entry(params, "session-not-found-action", "end") ==
	               BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK
	           ? 0
	           : -1;
}

void ct_live_wait(void)
{
	nanosleep(&(struct timespec){ .tv_nsec = LIVE_WAIT_NS }, NULL);
}
