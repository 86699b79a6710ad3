#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record` of programs whose threads allocate and free at once
# (tests/programs/accounting churn, churn-exit), on the simulated GPU: the
# report's allocations, frees, bytes live at the end and peak against the
# simulator's ledger (check-threads.py). A release is done when its call
# returns, so the peak under threads is within 1 % of the ledger's or
# given as a range that holds it; when the process exits while threads
# allocate, its exit() lets their calls under way end and holds back new
# ones, so that the counts are the ledger's; an atexit handler that joins
# those threads (churn-join) is not kept waiting for long.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
trace_require_program accounting
program=$trace_cmd

# TAG: record ARGS of the program, its report as JSON held against the ledger.
threads_case() { # tag status threads-at-exit args...
	tag=$1
	status=$2
	at_exit=$3
	shift 3
	cli_record "$tag" -o "$lttng_tmp/$tag" -- $program "$@"
	cli_status_is "$tag: record exits with the program's status" "$status"
	if ! "$cli_bin" report --format json -o "$lttng_tmp/$tag.json" "$lttng_tmp/$tag" \
		2>"$lttng_tmp/$tag.report.err"; then
		tap_result 1 "$tag: cudatrace report reads the trace"
		sed 's/^/# /' "$lttng_tmp/$tag.report.err"
		return
	fi
	tap_result 0 "$tag: cudatrace report reads the trace"
	"${PYTHON3:-python3}" "$cli_here/check-threads.py" "$lttng_tmp/$tag.ledger" \
		"$lttng_tmp/$tag.json" $at_exit >"$lttng_tmp/$tag.tap" 2>&1
	tap_relay "$tag" "$lttng_tmp/$tag.tap"
}

threads_case churn16 0 "" churn 16 1000
threads_case churn4 0 "" churn 4 3000
threads_case exit-main 5 8 churn-exit 8 main
threads_case exit-thread 7 8 churn-exit 8 thread
threads_case exit-join 3 8 churn-join 8

# A thread waiting 5 s for the device when main exits: exit() does not
# wait for a wait, which changes no memory, and the counts are the
# ledger's. A thread inside a cudaFree that waits as long: exit() waits
# for it a moment only, and says so; the report's counts are then bounds.
waiting_case() { # how caveats evidence
	tag=exit-waiting-$1
	start=$(date +%s)
	cli_record $tag -o "$lttng_tmp/$tag" -- $program exit-waiting $1
	cli_status_is "$tag: record exits with the program's status" 4
	ok "$tag: the program did not wait for the call ($(($(date +%s) - start)) s)" \
		test $(($(date +%s) - start)) -lt 5
	"$cli_bin" report --format json -o "$lttng_tmp/$tag.json" "$lttng_tmp/$tag" \
		2>"$lttng_tmp/$tag.report.err"
	is "$tag: the caveats of the counts, and why" \
		"$("${PYTHON3:-python3}" -c 'import json, sys
r = json.load(open(sys.argv[1]))
d = [d for d in r["memory"]["devices"] if d["device"] == 0][0]
print(sorted(c["caveat"] for c in d["caveats"]
             if c["figure"] == "allocations" and c["cause"] == "unfinished_calls"),
      sorted(e for c in r["memory"]["caveats"] if c["cause"] == "unfinished_calls"
             for e in c["evidence"]))' "$lttng_tmp/$tag.json")" "$2 $3"
	"${PYTHON3:-python3}" "$cli_here/check-threads.py" "$lttng_tmp/$tag.ledger" \
		"$lttng_tmp/$tag.json" 1 >"$lttng_tmp/$tag.tap" 2>&1
	tap_relay "$tag" "$lttng_tmp/$tag.tap"
}
waiting_case sync "[]" "[]"
waiting_case free "['lower_bound']" "['exit_calls', 'unfinished_releases']"
tap_done
