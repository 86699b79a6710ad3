#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record` of a Python script (CUDA through ctypes) on the
# simulated GPU: the trace holds what the ledger says, memory kept by the
# script shows in the short report; when the script is killed with
# SIGKILL (the OOM killer, a Jupyter restart), record keeps the trace,
# exits with 128+9 and writes the post-mortem beside the trace and on
# stderr; when record itself gets SIGTERM, it passes it on and ends the
# same way.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/tap.sh"
. "$cli_here/../lib/lttng-session.sh"
. "$cli_here/../lib/trace-run.sh"
. "$cli_here/../lib/cli.sh"

lttng_private_ns "$@"
cli_require
if ! lttng_daemon_start; then
	tap_result 1 "a private lttng-sessiond starts"
	tap_done
fi
cli_env

# 1. A script that keeps 1 MiB per step.
cli_record py -o "$lttng_tmp/py" -- "$trace_python" "$cli_workload" --steps 4 --leak
is "the script: record exits with its status" "$cli_status" 0
ok "the script's output is on stdout" grep -qx 'step 3' "$lttng_tmp/py.out"
ok "the short report shows what the script kept (4 MiB)" \
	cli_has py "4.00 MiB still allocated at the end"
if trace_read py "$lttng_tmp/py"; then
	tap_result 0 "the trace reads back with babeltrace2"
	trace_check py --checks readable,ops,live
else
	tap_result 1 "the trace reads back with babeltrace2"
fi

# Starts the script in the background under record, paused after 3 steps;
# sets rec_pid, and script_pid once it paused.
start_paused() {
	rm -f "$lttng_tmp/$1.ledger"
	CUDASIM_LEDGER="$lttng_tmp/$1.ledger" "$cli_bin" record -o "$lttng_tmp/$1" -- \
		"$trace_python" "$cli_workload" --steps 3 --leak --pause \
		>"$lttng_tmp/$1.out" 2>"$lttng_tmp/$1.err" &
	rec_pid=$!
	script_pid=""
	if cli_wait_for "$lttng_tmp/$1.out" '^paused' $rec_pid; then
		script_pid=$(cli_children $rec_pid)
	fi
	ok "$1: the script paused under record" test -n "$script_pid"
}

# 2. The script is killed with SIGKILL.
start_paused killed
[ -n "$script_pid" ] && kill -KILL $script_pid
status=0
wait $rec_pid || status=$?
is "killed: record exits with 128+9" "$status" 137
ok "killed: record says how the script ended" cli_has killed "was killed by SIGKILL"
ok "killed: the post-mortem is on stderr" cli_has killed "^Post-mortem: python"
ok "killed: it shows the 3 MiB live when the script died" cli_has killed "3.00 MiB live"
ok "killed: the post-mortem is beside the trace" \
	grep -q "^Post-mortem" "$lttng_tmp/killed/postmortem.txt"
ok "killed: the notes say it was killed" grep -qx 'end=killed' "$lttng_tmp/killed/cudatrace.info"
ok "killed: ... by signal 9" grep -qx 'end_code=9' "$lttng_tmp/killed/cudatrace.info"
if trace_read killed "$lttng_tmp/killed"; then
	tap_result 0 "killed: the trace reads back"
	trace_check killed --checks readable,ops,live
else
	tap_result 1 "killed: the trace reads back"
fi

# 3. record gets SIGTERM: the script gets it, record ends as it does.
start_paused term
kill -TERM $rec_pid
status=0
wait $rec_pid || status=$?
is "SIGTERM to record: record exits with 128+15" "$status" 143
ok "SIGTERM to record: the script got it" cli_has term "was killed by SIGTERM"
ok "SIGTERM to record: the post-mortem is written" test -s "$lttng_tmp/term/postmortem.txt"
if trace_read term "$lttng_tmp/term"; then
	tap_result 0 "SIGTERM to record: the trace reads back"
	trace_check term --checks readable,ops,live
else
	tap_result 1 "SIGTERM to record: the trace reads back"
fi
sessions=$(lttng_client list 2>/dev/null | grep -c '^ *[0-9]*) cudatrace-' || :)
is "no session is left in the daemon" "$sessions" 0
tap_done
