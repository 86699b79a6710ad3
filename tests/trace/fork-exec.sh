#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fork() and exec() in a traced program (examples/cuda/fork-exec): a forked
# child that does no CUDA work and leaves through exit(), so it runs the exit
# handlers it inherited, must neither hang nor touch the parent's CUPTI
# state; an exec'd child is traced on its own. The program's output and
# exit statuses are those of the untraced run, and the operations of both
# traced processes (parent and exec'd child) are in the trace as the ledger
# has them. The parent's trace says it forked two children; the report
# names the one that did not exec as untraced, and not the exec'd one,
# which is traced under its pid.

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
	is "the trace says the parent forked two children" \
		"$(grep -c '^event=cudatrace:process_fork ' "$lttng_tmp/traced.events")" 2
fi
status=0
"$trace_builddir/cli/cudatrace" report --format json -o "$lttng_tmp/traced.json" "$lttng_trace" \
	2>"$lttng_tmp/traced.report-err" || status=$?
is "cudatrace report succeeds" "$status" 0
# the exec'd child: the process of the ledger that is not the first
exec_child=$(sed -n 's/.* pid=\([0-9]*\) .*/\1/p' "$lttng_tmp/traced.ledger" | uniq | sed -n 2p)
is "the report names the child that did not exec as untraced, and not the exec'd one" \
	"$("$trace_python" -c 'import json,sys
d = json.load(open(sys.argv[1]))["trace"]
kids = [c["child_pid"] for c in d["untraced_children"]]
print(len(kids), int(sys.argv[2]) in kids, kids[0] is not None if kids else None)' \
		"$lttng_tmp/traced.json" "${exec_child:-0}")" "1 False True"
tap_done
