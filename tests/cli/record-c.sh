#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record` of C programs on the simulated GPU, end to end, with
# no session daemon running at first: record starts one, traces the
# program into a session of its own, exits with the program's status, and
# leaves a trace that holds exactly what the simulator's ledger says
# happened, the record's notes (cudatrace.info) and a short report on
# stderr. A second record finds the daemon the first one started.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_without_daemon

trace_require_workload driver-api

# 1. No daemon: record starts one.
cli_record drv -o "$lttng_tmp/drv" -- $trace_cmd
cli_status_is "driver-api: record exits with the program's status" 0
ok "a session daemon was started" cli_has drv "started an LTTng session daemon"
ok "the daemon answers after record ended" cli_adopt_daemon
ok "record says where the trace is" cli_has drv "trace in $lttng_tmp/drv"
ok "record prints the peak GPU memory" cli_has drv "Peak GPU memory"
ok "record names the full report's command" cli_has drv "full report: cudatrace report $lttng_tmp/drv"
ok "the trace directory has the record's notes" test -s "$lttng_tmp/drv/cudatrace.info"
ok "the notes say the program exited with 0" \
	grep -qx 'end=exited' "$lttng_tmp/drv/cudatrace.info"
ok "the notes hold the command" grep -q "^command=.*driver-api" "$lttng_tmp/drv/cudatrace.info"
cli_trace_checked drv "the trace reads back with babeltrace2"
is "no session is left in the daemon" "$(cli_sessions)" 0

# 2. The daemon is there now: record uses it.
if trace_workload_or_fail allocations; then
	mkdir -p "$lttng_tmp/traces"
	cli_record alloc --trace-dir "$lttng_tmp/traces" -- $trace_cmd
	cli_status_is "allocations: record exits with the program's status" 0
	ok "no second daemon was started" cli_lacks "$lttng_tmp/alloc.err" "started an LTTng"
	dated=$(ls "$lttng_tmp/traces")
	ok "--trace-dir: a directory named by date and time ($dated)" \
		cli_matches "$dated" 'cudatrace-[0-9]\{8\}-[0-9]\{6\}$'
	ok "the failed allocation is in the short report" cli_has alloc "Allocation failures: 1"
	ok "with its verdict" cli_has alloc "out_of_memory|out of memory"
	cli_trace_checked alloc "the dated trace reads back" "$lttng_tmp/traces/$dated"
	ok "cudatrace report reads the trace" \
		"$cli_bin" report --format json -o "$lttng_tmp/alloc.json" "$lttng_tmp/traces/$dated"
fi

# 3. The program's own status comes back, and its output is untouched.
cli_record status -o "$lttng_tmp/status" -- "$trace_python" "$cli_workload" --steps 2 --exit 7
cli_status_is "a program exiting with 7: record exits with 7" 7
ok "its output is on stdout, unchanged" grep -qx 'step 1' "$lttng_tmp/status.out"
ok "record's lines are on stderr only" cli_lacks "$lttng_tmp/status.out" 'cudatrace record'
ok "record says how it ended" cli_has status "exited with status 7"
tap_done
