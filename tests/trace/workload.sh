# SPDX-License-Identifier: MIT
#
# workload.sh - the body of the workload-*.sh tests, sourced by them after
# they set `workload` (an example's name, see trace_workload) and optionally
# `workload_args` and CUDASIM_* variables. It runs the example untraced and
# traced under a private LTTng session, then checks that
#   - the traced program's exit status and output are the untraced ones;
#   - the trace reads back with babeltrace2 and lost nothing;
#   - every operation of the simulator's ledger is exactly one event with
#     the same fields; live bytes, correlation ids, GPU times and host
#     windows agree with the ledger (check-trace.py);
# and runs the function workload_extra_checks when the test defines one.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_workload "$workload"
trace_daemon_or_fail

# shellcheck disable=SC2086
trace_run plain plain $trace_cmd ${workload_args:-}
plain_status=$trace_status
is "$workload runs untraced on the simulator" "$plain_status" 0
[ "$plain_status" = 0 ] || trace_show_err plain

if lttng_session_begin "$workload"; then
	# shellcheck disable=SC2086
	trace_run traced traced $trace_cmd ${workload_args:-}
	lttng_session_end "$workload"
	is "$workload traced: same exit status" "$trace_status" "$plain_status"
	[ "$trace_status" = "$plain_status" ] || trace_show_err traced
	ok "$workload traced: same output" trace_same_output plain traced
	if trace_read traced; then
		trace_check traced
		if command -v workload_extra_checks >/dev/null 2>&1; then
			workload_extra_checks traced
		fi
	fi
else
	tap_result 1 "the LTTng session starts"
fi
tap_done
