/* SPDX-License-Identifier: MIT */
/*
 * bt-error.c - babeltrace2's current error, taken and summed up (see
 * bt-error.h).
 */
#include <stdio.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>

#include "bt-error.h"

void ct_bt_take_error(char *buf, size_t len)
{
	const bt_error *error = bt_current_thread_take_error();
	uint64_t n;

	snprintf(buf, len, "unknown error");
	if (!error)
		return;
	n = bt_error_get_cause_count(error);
	if (n > 0) {
		/* cause 0 is the first appended: the deepest, most specific one */
		const char *msg =
		    bt_error_cause_get_message(bt_error_borrow_cause_by_index(error, 0));
		size_t m;

		snprintf(buf, len, "%s", msg ? msg : "unknown error");
		/* one line only */
		m = strcspn(buf, "\n");
		buf[m] = '\0';
	}
	bt_error_release(error);
}
