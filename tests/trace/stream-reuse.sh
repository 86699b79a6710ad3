#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Stream ids when stream handles are given out again: programs/stream-reuse
# creates a stream, copies on it and destroys it, again and again; the
# simulator (CUDASIM_REUSE_STREAM_HANDLES=1) hands a destroyed stream's
# handle to the next one, with a new CUPTI stream id. libcudatrace.so remembers each thread's stream ids by
# handle (libtrace/handle-cache.c) and must forget them when a stream
# ends: each memcpy of the trace has the stream id of the simulator's
# ledger (check-trace.py's ops), and the copies are on as many streams as
# the ledger says. That handles were reused at all is the program's own
# printout.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_program stream-reuse
program=$trace_cmd
trace_daemon_or_fail

STREAMS=8
tag=reuse
if trace_session "$tag"; then
	trace_run "$tag" traced env CUDASIM_REUSE_STREAM_HANDLES=1 "$program" $STREAMS
	lttng_session_end "$tag"
	is "$tag: exit status" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	reused=$(sed -n 's/^reused=//p' "$lttng_tmp/$tag.out")
	ok "$tag: the simulator gave stream handles out again ($reused times)" \
		test "${reused:-0}" -gt 0
	if trace_read "$tag"; then
		trace_check "$tag" --checks readable,ops,corr
		ledger_streams=$(sed -n 's/.* op=memcpy .* stream=\([0-9]*\).*/\1/p' \
			"$lttng_tmp/$tag.ledger" | sort -u | wc -l)
		trace_streams=$(grep '^event=cudatrace:memcpy ' "$lttng_tmp/$tag.events" |
			sed -n 's/.* stream=\([0-9]*\).*/\1/p' | sort -u | wc -l)
		is "$tag: the copies are on $STREAMS streams in the ledger" "$ledger_streams" $STREAMS
		is "$tag: and on as many in the trace" "$trace_streams" "$ledger_streams"
	fi
fi
tap_done
