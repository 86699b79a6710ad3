#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Copies and memsets of no bytes (programs/zero-copy): CUDA does nothing
# for them, and the simulator's ledger has no line. The trace holds their
# calls (api_call) and no memcpy or memset for them: its operations are
# the ledger's (check-trace.py's ops), one copy and one memset, and the
# report counts one copy.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_program zero-copy
program=$trace_cmd
trace_daemon_or_fail

tag=zero
if trace_session "$tag"; then
	trace_run "$tag" traced "$program"
	lttng_session_end "$tag"
	is "$tag: exit status" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	ok "$tag: the program made its one copy and one memset" \
		grep -qx 'copies=1 memsets=1' "$lttng_tmp/$tag.out"
	is "$tag: the ledger has one copy" \
		"$(grep -c ' op=memcpy ' "$lttng_tmp/$tag.ledger")" 1
	if trace_read "$tag"; then
		trace_check "$tag" --checks readable,ops,corr
		is "$tag: one memcpy event" \
			"$(grep -c '^event=cudatrace:memcpy ' "$lttng_tmp/$tag.events")" 1
		is "$tag: one memset event" \
			"$(grep -c '^event=cudatrace:memset ' "$lttng_tmp/$tag.events")" 1
		ok "$tag: the calls of no bytes are in the trace" \
			test "$(grep -c '^event=cudatrace:api_call ' "$lttng_tmp/$tag.events")" -ge 5
	fi
fi
tap_done
