#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fork() and exec() in a traced program (examples/cuda/fork-exec): a forked
# child that does no CUDA work and leaves through exit(), so it runs the exit
# handlers it inherited, must neither hang nor touch the parent's CUPTI
# state; an exec'd child is traced on its own. The program's output and
# exit statuses are those of the untraced run, and the operations of both
# traced processes (parent and exec'd child) are in the trace as the ledger
# has them.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_workload fork-exec
trace_daemon_or_fail

TRACE_TIMEOUT=60
trace_run plain plain $trace_cmd
plain_status=$trace_status
is "untraced: exit status" "$plain_status" 0
if ! lttng_session_begin forks; then
	tap_result 1 "the LTTng session starts"
	tap_done
fi
trace_run traced traced $trace_cmd
lttng_session_end forks
is "traced: same exit status (no hang)" "$trace_status" "$plain_status"
[ "$trace_status" = "$plain_status" ] || trace_show_err traced
ok "traced: same output, children's statuses included" trace_same_output plain traced
pids=$(sed -n 's/.* pid=\([0-9]*\) .*/\1/p' "$lttng_tmp/traced.ledger" | sort -u | wc -l)
is "two processes did CUDA work (parent and exec'd child)" "$pids" 2
if trace_read traced; then
	trace_check traced
fi
tap_done
