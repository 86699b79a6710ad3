#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace examples/cuda/transfers (copies of every direction, memsets,
# kernels on the legacy stream and on a stream of its own; two rounds),
# then `cudatrace export --format ctf` it and compare the GPU-time trace
# with the simulator's ledger and with the trace it was made from
# (check-ctf-export.py). The Trace Compass analyses of doc/tracecompass/
# name only events and fields of these two traces' metadata
# (check-tracecompass-xml.py), and the check catches one that does not.
# Then what export refuses: an output directory that is not empty, an
# unknown format, a path that holds no trace.
workload=transfers
workload_args=2

workload_extra_checks() {
	export_gpu_time "$1"

	export_checker=$trace_srcdir/tests/export/check-tracecompass-xml.py
	"$trace_python_bt2" "$export_checker" --trace "$lttng_trace" --trace "$export_out" \
		"$trace_srcdir"/doc/tracecompass/*.xml >"$lttng_tmp/xml.tap" 2>&1
	tap_relay "Trace Compass analyses" "$lttng_tmp/xml.tap"
	sed 's/value="delta"/value="deltas"/' "$trace_srcdir/doc/tracecompass/cudatrace-memory.xml" \
		>"$lttng_tmp/misnamed.xml"
	ok "Trace Compass analyses: the check fails one that reads a field no event has" \
		sh -c '! "$1" "$2" --trace "$3" "$4" >/dev/null 2>&1' sh "$trace_python_bt2" \
		"$export_checker" "$lttng_trace" "$lttng_tmp/misnamed.xml"

	export_status=0
	"$export_cmd" export --format ctf -o "$export_out" "$lttng_trace" \
		>/dev/null 2>"$lttng_tmp/again.err" || export_status=$?
	is "export into a directory that is not empty exits 1" "$export_status" 1
	ok "... and says so" grep -q "is not empty" "$lttng_tmp/again.err"
	export_status=0
	"$export_cmd" export --format perfetto-none -o "$lttng_tmp/x" "$lttng_trace" \
		>/dev/null 2>"$lttng_tmp/format.err" || export_status=$?
	is "an unknown format exits 2" "$export_status" 2
	ok "... and names it" grep -q "unknown format 'perfetto-none'" "$lttng_tmp/format.err"
	export_status=0
	"$export_cmd" export --format ctf -o "$lttng_tmp/y" "$lttng_tmp/no-such-trace" \
		>/dev/null 2>"$lttng_tmp/missing.err" || export_status=$?
	is "a path without a trace exits 2" "$export_status" 2
	ok "... and nothing is written" test ! -e "$lttng_tmp/y"
}

. "$(dirname "$0")/export-checks.sh"
. "$(dirname "$0")/../trace/workload.sh"
