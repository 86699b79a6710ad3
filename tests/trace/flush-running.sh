#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Copies unfinished when the tracer flushes CUPTI's records with
# CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, at cudaProfilerStop and at
# cudaDeviceReset (programs/flush-running), after one that ended: two
# running (a start, an end of 0) and one waiting behind one of them
# (neither), as CUPTI documents the incomplete records of a forced flush.
# The trace keeps the records as CUPTI gave them; the report counts the
# four copies (the ledger's), states that three ends are unknown, and
# gives those no duration (neither 0 counted as a time nor a negative
# one): the GPU time is the ledger's for the copy that ended. The Perfetto
# export names the slices of those that began so, and the GPU-time export
# says it leaves the three out.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_program flush-running
program=$trace_cmd
cudatrace="$trace_builddir/cli/cudatrace"
[ -x "$cudatrace" ] || tap_fail_all "cudatrace is not built ($cudatrace)"
trace_daemon_or_fail

# report_field EXPR: EXPR of the JSON report, in Python.
report_field() {
	"$trace_python" -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" \
		"$lttng_tmp/$tag.json"
}

tag=running
if trace_session "$tag"; then
	# 64 MiB at 1 GB/s: each copy runs 67 ms, long after the next call begins
	CUDASIM_BW_HTOD_PINNED=1e9 trace_run "$tag" traced "$program"
	lttng_session_end "$tag"
	is "$tag: exit status" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	ok "$tag: the program made its copies" grep -qx 'copies=4 unfinished=3' "$lttng_tmp/$tag.out"
	is "$tag: the ledger has four copies" "$(grep -c ' op=memcpy ' "$lttng_tmp/$tag.ledger")" 4
	if trace_read "$tag"; then
		trace_check "$tag" --checks readable,ops,corr
		is "$tag: the trace holds the three records, with CUPTI's end of 0" \
			"$(grep -c '^event=cudatrace:gpu_memcpy.* end=0\( \|$\)' "$lttng_tmp/$tag.events")" 3
		is "$tag: ... one of them with a start of 0" \
			"$(grep -c '^event=cudatrace:gpu_memcpy.* start=0 ' "$lttng_tmp/$tag.events")" 1
	fi
	status=0
	"$cudatrace" report --format json -o "$lttng_tmp/$tag.json" "$lttng_trace" \
		2>"$lttng_tmp/$tag.report-err" || status=$?
	is "$tag: cudatrace report succeeds" "$status" 0
	is "$tag: the report counts the ledger's copies" "$(report_field "d['transfers']['copies']")" 4
	is "$tag: ... each with its record" \
		"$(report_field "d['transfers']['copies_without_gpu_record']")" 0
	is "$tag: ... three of them with no end" \
		"$(report_field "d['transfers']['gpu_records_end_unknown']")" 3
	is "$tag: ... and the trace section says so" \
		"$(report_field "d['trace']['gpu_end_unknown']")" 3
	# the ledger's GPU time of the copy that ended, the only one with a time
	ended=$(sed -n 's/.* op=memcpy .*bytes=4096 .*gpu_start=\([0-9]*\) gpu_end=\([0-9]*\).*/\2 - \1/p' \
		"$lttng_tmp/$tag.ledger")
	is "$tag: no GPU time is made up for them: the ledger's of the copy that ended" \
		"$(report_field "d['transfers']['gpu_time_ns']")" "$(($ended))"
	is "$tag: nor a bandwidth" \
		"$(report_field "[h['bandwidth_bytes_per_s'] for h in d['transfers']['hotspots'] if h['api'] == 'cudaMemcpyAsync']")" \
		"[None]"
	ok "$tag: the report says it on the standard error" \
		grep -q "3 GPU operations had not finished when CUPTI handed their records over" \
		"$lttng_tmp/$tag.report-err"
	status=0
	"$cudatrace" report --brief "$lttng_trace" >"$lttng_tmp/$tag.brief" 2>/dev/null ||
		status=$?
	is "$tag: cudatrace report --brief succeeds" "$status" 0
	ok "$tag: its first page says the ends are unknown" \
		grep -q "3 GPU operations had not finished when CUPTI's records were flushed" \
		"$lttng_tmp/$tag.brief"
	status=0
	"$cudatrace" export --format perfetto -o "$lttng_tmp/$tag.pftrace" "$lttng_trace" \
		2>"$lttng_tmp/$tag.pf-err" || status=$?
	is "$tag: the Perfetto export succeeds" "$status" 0
	ok "$tag: its slices say the end is unknown" \
		grep -q "memcpy HtoD.*(end unknown)" "$lttng_tmp/$tag.pftrace"
	status=0
	"$cudatrace" export --format ctf -o "$lttng_tmp/$tag.ctf" "$lttng_trace" \
		2>"$lttng_tmp/$tag.ctf-err" || status=$?
	is "$tag: the GPU-time export succeeds" "$status" 0 || sed 's/^/#   /' "$lttng_tmp/$tag.ctf-err"
	ok "$tag: and says it leaves the three copies out" \
		grep -q "3 GPU records have no GPU times" "$lttng_tmp/$tag.ctf-err"
fi
tap_done
