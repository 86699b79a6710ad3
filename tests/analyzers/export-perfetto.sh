#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace export --format perfetto` of a program traced on the simulated
# GPU (tests/programs/export-workload: kernels on two streams, copies of
# each direction, synchronous ones too, memsets, NVTX ranges, a failed
# allocation), decoded with
# Perfetto's own protos (check-perfetto.py, in a virtual environment with
# PyPI's perfetto) and compared with the simulator's ledger, the program's
# printout and the report, its flows replayed in trace_processor's import
# order; the same run with activity records dropped, which the export says
# it misses; a trace whose GPU work starts before its calls return, traces
# of hostile names and extreme values (make-ctf.py); then its answers to
# wrong arguments and unusable input.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/lttng-session.sh"
. "$here/../lib/trace-run.sh"
. "$here/../lib/perfetto-venv.sh"
. "$here/report-lib.sh"

report_traced_setup "$@"
trace_require_program export-workload
perfetto_python "${TESTS_BUILDDIR:-$report_builddir/tests}"

# export_run TAG ARGS...: `cudatrace export ARGS...`, as report_run runs report.
export_run() {
	export_tag=$1
	shift
	report_status=0
	"$report_cmd" export "$@" >"$report_tmp/$export_tag.out" 2>"$report_tmp/$export_tag.err" ||
		report_status=$?
}

if trace_session ex; then
	trace_run ex traced "$trace_cmd"
	lttng_session_end ex
	is "ex: the workload ran" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err ex
	export_run ex --format=perfetto -o "$report_tmp/ex.pftrace" "$lttng_trace"
	report_exits ex 0
	report_run ex-report --format=json "$lttng_trace"
	report_exits ex-report 0
	"$perfetto_python" "$report_here/check-perfetto.py" "$report_tmp/ex.pftrace" \
		"$lttng_tmp/ex.ledger" "$lttng_tmp/ex.out" "$report_tmp/ex-report.out" \
		>"$report_tmp/ex.tap" 2>&1
	tap_relay ex "$report_tmp/ex.tap"

	# the format is the default one, and the command is the same on the same trace
	export_run ex-default -o "$report_tmp/ex-default.pftrace" "$lttng_trace"
	report_exits ex-default 0
	cmp -s "$report_tmp/ex.pftrace" "$report_tmp/ex-default.pftrace"
	is "perfetto is the default format, and the export is reproducible" $? 0

	export_run ex-full --format=perfetto -o /dev/full "$lttng_trace"
	report_exits ex-full 1
	report_says ex-full "cannot write '/dev/full'"
	[ -c /dev/full ]
	is "ex-full: a device written to is not removed" $? 0
fi

# activity records the simulator drops are said to be missing
CUDASIM_CUPTI_DROP_EVERY=4
export CUDASIM_CUPTI_DROP_EVERY
if trace_session drops; then
	trace_run drops traced "$trace_cmd"
	lttng_session_end drops
	is "drops: the workload ran" "$trace_status" 0
	export_run drops -o "$report_tmp/drops.pftrace" "$lttng_trace"
	report_exits drops 0
	"$perfetto_python" "$report_here/check-perfetto.py" --drops "$report_tmp/drops.pftrace" \
		"$lttng_tmp/drops.ledger" >"$report_tmp/drops.tap" 2>&1
	tap_relay drops "$report_tmp/drops.tap"
fi
unset CUDASIM_CUPTI_DROP_EVERY

# GPU work that starts before its call returns: an arrow for each operation
"$report_python" "$report_here/make-ctf.py" flows "$report_tmp/flows" >"$report_tmp/flows.json" ||
	tap_fail_all "make-ctf.py makes the flows trace"
export_run flows -o "$report_tmp/flows.pftrace" "$report_tmp/flows"
report_exits flows 0
"$perfetto_python" "$report_here/check-perfetto.py" --flows "$report_tmp/flows.pftrace" \
	"$report_tmp/flows.json" >"$report_tmp/flows.tap" 2>&1
tap_relay flows "$report_tmp/flows.tap"

# names that are not UTF-8, control characters, values at the ends of their ranges
for case in strings "extremes 1"; do
	tag=${case%% *}
	# shellcheck disable=SC2086
	"$report_python" "$report_here/make-ctf.py" $case "$report_tmp/$tag" >/dev/null ||
		tap_fail_all "make-ctf.py makes the $tag trace"
	export_run "$tag" -o "$report_tmp/$tag.pftrace" "$report_tmp/$tag"
	report_exits "$tag" 0
	"$perfetto_python" "$report_here/check-perfetto.py" --decodes "$report_tmp/$tag.pftrace" \
		>"$report_tmp/$tag.tap" 2>&1
	tap_relay "$tag" "$report_tmp/$tag.tap"
done

export_run unknown --format=json -o "$report_tmp/x" "$report_tmp"
report_exits unknown 2
report_says unknown "unknown format 'json'"

export_run no-output "$report_tmp"
report_exits no-output 2
report_says no-output "no output given"

mkdir "$report_tmp/empty"
export_run not-a-trace -o "$report_tmp/empty.pftrace" "$report_tmp/empty"
report_exits not-a-trace 2
[ ! -e "$report_tmp/empty.pftrace" ]
is "not-a-trace: no file is left" $? 0

tap_done
