#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The size of a recorded trace per traced call: a count of bytes, not a
# time, so it is the same on any machine. programs/copy-loop makes N small
# cudaMemcpyAsync uploads; it is recorded twice with `cudatrace record`
# (its contexts, its events), with N1 and N2 copies, and the bytes the
# trace's packets hold (bench/trace-stats.py: content_bytes, from the
# trace's index, without the padding that ends each packet) are compared:
# (bytes2 - bytes1) / (N2 - N1) is what one more copy costs, the fixed
# part (metadata, tracer_info, names, library_load, setup calls) taken
# out. The number of copies is the program's own printout. The trace has
# no procname context: the report still names the process after its
# program, from tracer_info.
#
# Each copy but the first is a repeat of the first one's memcpy event
# (the same addresses, size and stream: doc/events.md, "repeat"), which
# records its call (its correlation id and entry time); its thread keeps
# its repeats and writes them 64 at a time in a repeat_run, and its GPU
# record goes in a gpu_batch, which holds the times of up to 96 kernels
# and copies from CUPTI's records (the bytes and the stream are the
# memcpy's); --no-api leaves out only the calls no semantic event
# records, none here. A repeat's columns in the run take 20 bytes (shape
# 8, correlation id, exit and duration 4 each), and the run's header,
# contexts, base, tid and the lengths of its 5 columns (that of moved
# calls empty: doc/events.md, "repeat_moved") about 44 bytes shared by
# its 64 calls; a copy's columns in the batch take 16 bytes,
# and the batch's own header, context and fields (8 + 4 + 1, and a 2-byte
# length for each of its 11 columns) about 45 bytes shared by its records
# (doc/events.md, "Size of the trace"): 20 + 0.7 + 16 + 0.4 = 37.1 bytes a
# copy, in both modes. The bound is 40: a trace that writes a repeat as
# an event of its own (30 bytes), the memcpy event whole again (70 bytes),
# an event for each copy's record, a GPU record whole, or a context more
# on every event, fails. The copies are counted in the report too: as
# many as the program made, none lost.

# programs/launch-loop makes N <<<>>> launches of one kernel with one
# configuration, measured the same way, with and without --no-api: a
# repeat of the first launch's launch_unconfigured in a run (20.7 bytes)
# and a shaped kernel's record in a gpu_batch (17 bytes of columns: its
# stream and configuration are the one kernel_shape's) naming that
# kernel_shape, 38.1 bytes a launch; bound 40.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
program="$trace_builddir/tests/programs/copy-loop"
unit=copies
[ -x "$program" ] || tap_fail_all "programs/copy-loop is not built"
launch_loop="$trace_builddir/tests/programs/launch-loop"
[ -x "$launch_loop" ] || tap_fail_all "programs/launch-loop is not built"
stats="$trace_srcdir/bench/trace-stats.py"

N1=1000
N2=5000
BOUND_API=40
BOUND_NO_API=40
BOUND_LAUNCH=40

# stat TAG KEY: KEY's value in TAG's trace-stats line.
stat() {
	tr ' ' '\n' <"$lttng_tmp/$1.stats" | sed -n "s/^$2=//p"
}

# record TAG N [RECORD OPTIONS...]: record $program N into TAG, which
# prints how many $unit it made; two tests.
record() {
	tag=$1
	n=$2
	shift 2
	cli_record "$tag" -o "$lttng_tmp/$tag" "$@" -- "$program" "$n"
	cli_status_is "$tag: record exits with the program's status" 0 ||
		sed 's/^/#   /' "$lttng_tmp/$tag.err"
	is "$tag: the program made its $n $unit" \
		"$(sed -n "s/^$unit=\([0-9]*\) .*/\1/p" "$lttng_tmp/$tag.out")" "$n"
	"$trace_python_bt2" "$stats" "$lttng_tmp/$tag" >"$lttng_tmp/$tag.stats" \
		2>"$lttng_tmp/$tag.stats-err" || sed 's/^/#   /' "$lttng_tmp/$tag.stats-err"
}

# per_op WHAT TAG1 TAG2 BOUND: bytes and events per operation ($unit)
# between the two runs; the bytes at most BOUND.
per_op() {
	bytes=$(awk -v a="$(stat "$2" content_bytes)" -v b="$(stat "$3" content_bytes)" \
		-v n=$((N2 - N1)) 'BEGIN { printf "%.1f", (b - a) / n }')
	events=$((($(stat "$3" events) - $(stat "$2" events)) / (N2 - N1)))
	diag "$1: $bytes trace bytes and $events events per operation"
	ok "$1: at most $4 trace bytes per operation ($bytes)" \
		awk -v b="$bytes" -v max="$4" 'BEGIN { exit !(b > 0 && b <= max) }'
}

record api1 $N1
report_status=0
"$cli_bin" report --format=json -o "$lttng_tmp/api1.json" "$lttng_tmp/api1" \
	2>"$lttng_tmp/api1.report.err" || report_status=$?
is "api1: the report is made" "$report_status" 0 || sed 's/^/#   /' "$lttng_tmp/api1.report.err"
is "api1: the report names the process after its program, without a procname context" \
	"$("$trace_python" "$cli_here/../lib/environment-entry.py" "$lttng_tmp/api1.json" \
		"$(sed -n 's/^copies=.* pid=//p' "$lttng_tmp/api1.out")" 'p["procname"]')" copy-loop
# report_entry TAG EXPRESSION: EXPRESSION over TAG's JSON report, r.
report_entry() {
	"$trace_python" -c 'import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
print(eval(sys.argv[2]))' "$lttng_tmp/$1.json" "$2"
}
is "api1: the report has every copy the program made, each with its GPU record, none lost" \
	"$(report_entry api1 '(r["transfers"]["copies"], r["transfers"]["gpu_records"],
		r["transfers"]["copies_without_gpu_record"], r["trace"]["unmatched_repeats"],
		r["trace"]["unmatched_gpu_records"])')" "($N1, $N1, 0, 0, 0)"
record api2 $N2
per_op "API calls on" api1 api2 $BOUND_API
is "API calls on: no event of its own per copy: runs of repeats and batches" "$events" 0

record noapi1 $N1 --no-api
record noapi2 $N2 --no-api
per_op "--no-api" noapi1 noapi2 $BOUND_NO_API
is "--no-api: no event of its own per copy: runs of repeats and batches" "$events" 0

# gpu_records TAG: "whole times batched", the copies' GPU records of TAG's
# trace in each form.
gpu_records() {
	echo "$(grep -c '^event=cudatrace:gpu_memcpy ' "$lttng_tmp/$1.events")" \
		"$(grep -c '^event=cudatrace:gpu_memcpy_times ' "$lttng_tmp/$1.events")" \
		"$(trace_batched "$1" direction)"
}
if trace_read api1 "$lttng_tmp/api1"; then
	is "by default, every copy's GPU record is in a batch ($N1)" "$(gpu_records api1)" "0 0 $N1"
	host_events=$(grep -c '^event=cudatrace:memcpy ' "$lttng_tmp/api1.events")
	repeats=$(trace_repeats api1)
	ok "by default, a copy is a repeat of the first one's memcpy, written again each second ($host_events memcpy, $repeats repeats)" \
		test "$host_events" -ge 1 -a "$host_events" -le 10 -a $((host_events + repeats)) -eq $N1
	batches=$(grep -c '^event=cudatrace:gpu_batch ' "$lttng_tmp/api1.events")
	ok "a batch holds at most 96 records ($batches batches)" \
		test "$batches" -gt 0 -a $((batches * 96)) -ge $N1
fi
# CUDATRACE_COMPACT=0 writes every record whole: a gpu_memcpy event (46
# bytes of fields, 10 of header and vpid) instead of 16.4 bytes in a
# batch, 39.6 bytes more a copy; and every copy's memcpy whole (70 bytes)
# instead of a repeat in a run (21.3), 48.7 more.
CUDATRACE_COMPACT=0
export CUDATRACE_COMPACT
record whole1 $N1
unset CUDATRACE_COMPACT
trace_read whole1 "$lttng_tmp/whole1" &&
	is "CUDATRACE_COMPACT=0: every copy's GPU record is whole ($N1)" "$(gpu_records whole1)" "$N1 0 0"
ok "CUDATRACE_COMPACT=0: the trace is larger by a GPU event a copy, less its batched columns, and a memcpy, less a repeat in a run ($(awk -v a="$(stat api1 content_bytes)" -v b="$(stat whole1 content_bytes)" -v n=$N1 'BEGIN { printf "%.1f", (b - a) / n }') bytes)" \
	awk -v a="$(stat api1 content_bytes)" -v b="$(stat whole1 content_bytes)" -v n=$N1 \
	'BEGIN { exit !(b - a >= 87 * n && b - a <= 90 * n) }'

# <<<>>> launches: each kernel's record names its configuration by the one
# kernel_shape.
program=$launch_loop
unit=launches
record launch1 $N1
record launch2 $N2
per_op "<<<>>> launches" launch1 launch2 $BOUND_LAUNCH
is "<<<>>> launches: no event of its own per launch: runs of repeats and batches" "$events" 0
record launch-noapi1 $N1 --no-api
record launch-noapi2 $N2 --no-api
per_op "<<<>>> launches, --no-api" launch-noapi1 launch-noapi2 $BOUND_LAUNCH
if trace_read launch1 "$lttng_tmp/launch1"; then
	is "<<<>>> launches: each kernel's record is shaped and batched ($N1), naming one kernel_shape" \
		"$(trace_batched launch1 shape_id) $(
			grep -c '^event=cudatrace:kernel_shape ' "$lttng_tmp/launch1.events") $(
			grep -c '^event=cudatrace:gpu_kernel ' "$lttng_tmp/launch1.events") $(
			grep -c '^event=cudatrace:gpu_kernel_shaped ' "$lttng_tmp/launch1.events")" \
		"$N1 1 0 0"
	host_events=$(grep -c '^event=cudatrace:launch_unconfigured ' "$lttng_tmp/launch1.events")
	repeats=$(trace_repeats launch1)
	ok "<<<>>> launches: a launch is a repeat of the first one's launch_unconfigured ($host_events launch_unconfigured, $repeats repeats)" \
		test "$host_events" -ge 1 -a "$host_events" -le 10 -a $((host_events + repeats)) -eq $N1
fi
tap_done
