#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A traced workload killed with SIGKILL midway, as the OOM killer or a
# Jupyter restart would: every host event emitted before the kill (every
# operation in the ledger, which the simulator writes as it happens) is in
# the trace, and the trace reads back. The workload pauses after a given
# step and is killed there, so the kill lands between two operations, with
# allocations still live and no exit handler run.
#
# Twice: killed at once, when the GPU records may still sit in CUPTI's
# buffers (only the host side is checked, launches without the
# configuration their gpu_kernel would give); and killed a few flush
# periods later, when the periodic flush must have delivered the GPU
# events of the work done before the pause.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_workload leaky-steps
trace_daemon_or_fail

steps=40
pause_at=5
# A short flush period keeps the wait before the second kill short.
CUDATRACE_FLUSH_PERIOD_MS=200
export CUDATRACE_FLUSH_PERIOD_MS

# Wait up to 60 s for the workload to print that it paused.
wait_for_pause() { # PID OUT
	tries=0
	while [ $tries -lt 600 ]; do
		grep -q "^paused after step $pause_at" "$2" 2>/dev/null && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
		tries=$((tries + 1))
	done
	return 1
}

# kill_midway TAG SECONDS: run the workload under session TAG, kill it
# SECONDS after it paused.
kill_midway() {
	trace_session "$1" || return 1
	# exec: the background job's pid is the workload's own.
	(
		LD_LIBRARY_PATH="$trace_simdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		CUDASIM_LEDGER="$lttng_tmp/$1.ledger"
		CUDA_INJECTION64_PATH="$trace_lib"
		LTTNG_UST_REGISTER_TIMEOUT="${LTTNG_UST_REGISTER_TIMEOUT:-20000}"
		export LD_LIBRARY_PATH CUDASIM_LEDGER CUDA_INJECTION64_PATH LTTNG_UST_REGISTER_TIMEOUT
		exec $trace_cmd $steps $pause_at >"$lttng_tmp/$1.out" 2>"$lttng_tmp/$1.err"
	) &
	pid=$!
	if wait_for_pause $pid "$lttng_tmp/$1.out"; then
		tap_result 0 "$1: the workload paused after step $pause_at"
		sleep "$2"
	else
		tap_result 1 "$1: the workload paused after step $pause_at"
		trace_show_err "$1"
	fi
	kill -KILL $pid 2>/dev/null
	status=0
	{ wait $pid; } 2>/dev/null || status=$?
	is "$1: the workload died of SIGKILL" "$status" 137
	lttng_session_end "$1"
	launches=$(grep -c 'op=launch' "$lttng_tmp/$1.ledger" || :)
	is "$1: the ledger stops at step $pause_at (one launch a step)" "$launches" $pause_at
	trace_read "$1"
}

if kill_midway killed-at-once 0; then
	trace_check killed-at-once --checks readable,ops,live --allow-missing-gpu
fi
if kill_midway killed-later 1; then
	trace_check killed-later --checks readable,ops,live,corr,gputime
fi
tap_done
