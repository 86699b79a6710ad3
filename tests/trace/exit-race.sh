#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Two threads that call exit() at about the same time, as programs that
# exit from a checkCudaErrors do (tests/programs/accounting exit-race):
# whichever thread runs cudatrace's exit handler, the other does not end
# the process before the handler has flushed CUPTI's activity buffers.
# Every copy and memset of the ledger has its gpu_* event in the trace,
# with the ledger's GPU times, or the loss is counted (activity_dropped,
# or a tracer_error of kind activity when the flush ran out of time).
# Several runs, since the race is one of timing.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_program accounting
program=$trace_cmd
trace_daemon_or_fail

# The GPU work of TAG's ledger (copies and memsets), and its gpu_* events.
ledger_gpu_work() {
	grep -c " op=\(memcpy\|memset\) " "$lttng_tmp/$1.ledger" || :
}
trace_gpu_events() {
	echo $(($(trace_count "$1" gpu_memcpy) + $(trace_count "$1" gpu_memcpy_times) +
		$(trace_batched "$1" direction) + $(trace_count "$1" gpu_memset) +
		$(trace_count "$1" gpu_memset_times) + $(trace_batched_memsets "$1")))
}

for run in 1 2 3; do
	tag="exit-race$run"
	trace_session "$tag" || continue
	trace_run "$tag" traced "$program" exit-race 300
	lttng_session_end "$tag"
	is "$tag: exit status" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	trace_read "$tag" || continue
	work=$(ledger_gpu_work "$tag")
	gpu=$(trace_gpu_events "$tag")
	dropped=$(sed -n 's/^event=cudatrace:activity_dropped .*count=\([0-9]*\).*/\1/p' \
		"$lttng_tmp/$tag.events" | awk '{ n += $1 } END { print n + 0 }')
	flush_errors=$(grep -c '^event=cudatrace:tracer_error .*kind=activity' \
		"$lttng_tmp/$tag.events" || :)
	if [ "$dropped" -eq 0 ] && [ "$flush_errors" -eq 0 ]; then
		is "$tag: a gpu_* event for each copy and memset of the ledger ($work)" "$gpu" "$work"
		trace_check "$tag" --checks readable,ops,live,addresses,corr,gputime
	else
		ok "$tag: what was not flushed is counted ($work in the ledger, $gpu in the trace, $dropped dropped, $flush_errors flush errors)" \
			test $((gpu + dropped)) -ge "$work" -o "$flush_errors" -gt 0
		trace_check "$tag" --checks readable,ops,live,addresses,corr --allow-missing-gpu
	fi
done
tap_done
