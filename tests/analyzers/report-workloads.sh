#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Memory situations made on the simulated GPU by memory-workload, traced by
# libcudatrace into a private LTTng session, reported by `cudatrace report
# --format json` and compared with the simulator's ledger
# (check-memory-report.py): the peak and exactly the allocations live at it, what
# is live at the end, every failed allocation and its verdict.
#
#   fragment   enough memory free, no block large enough -> fragmented
#   exhaust    the device filled by the process          -> out_of_memory
#   elsewhere  other processes hold the device           -> held_elsewhere
#   leak       1 MiB kept per step, inside NVTX train/step: exactly those
#              leaks, at train/step and the line that made them, and a
#              range that grows

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/lttng-session.sh"
. "$here/../lib/trace-run.sh"
. "$here/report-lib.sh"

report_traced_setup "$@"

# traced_report TAG ARGS...: run memory-workload ARGS traced, report its trace as JSON.
traced_report() {
	tag=$1
	shift
	trace_session "$tag" || return 1
	trace_run "$tag" traced "$report_workload" "$@"
	lttng_session_end "$tag"
	is "$tag: the workload made its situation" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	report_run "$tag" --format=json "$lttng_trace"
	report_exits "$tag" 0
}

# check TAG ARGS...: check-memory-report.py ledger on TAG, relayed as TAP.
check() {
	tag=$1
	shift
	"$report_python" "$report_here/check-memory-report.py" ledger "$lttng_tmp/$tag.ledger" \
		"$report_tmp/$tag.out" "$@" >"$report_tmp/$tag.tap" 2>&1
	tap_relay "$tag" "$report_tmp/$tag.tap"
}

# A small device keeps the fills short; the context takes 300 MiB of it.
CUDASIM_DEVICE_MEMORY=1G
export CUDASIM_DEVICE_MEMORY
if traced_report fragment fragment; then
	check fragment --verdict out_of_memory --verdict fragmented
fi
if traced_report exhaust exhaust; then
	check exhaust --verdict out_of_memory
fi
unset CUDASIM_DEVICE_MEMORY

CUDASIM_OTHER_PROCESSES=0:4242:2684354560
export CUDASIM_OTHER_PROCESSES
if traced_report elsewhere elsewhere; then
	check elsewhere --verdict held_elsewhere
fi
unset CUDASIM_OTHER_PROCESSES

if traced_report leak leak 4; then
	check leak --leak-site "$report_leak_site" --growing train/step
fi
tap_done
