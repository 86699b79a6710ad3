#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record` of programs whose threads allocate and free at once
# (tests/programs/accounting churn, churn-exit), on the simulated GPU: the
# report's allocations, frees, bytes live at the end and peak against the
# simulator's ledger (check-threads.py). A release is done when its call
# returns, so the peak under threads is within 1 % of the ledger's or
# given as a range that holds it; a thread inside cudaFree when the
# process exits freed nothing, as the ledger says.

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
tap_done
