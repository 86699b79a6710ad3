# SPDX-License-Identifier: MIT
#
# report-lib.sh - what the `cudatrace report` tests share (POSIX sh). Source
# tap.sh first, then this file (and lttng-session.sh and trace-run.sh
# before it, for report_traced_setup).
#
#   report_locate            $report_cmd (the cudatrace command), $report_python,
#                            $report_here (this directory), $report_tmp (a
#                            scratch directory removed at exit); fails the
#                            script when the command is not built
#   report_run TAG ARGS...   `cudatrace report ARGS...`: stdout in
#                            $report_tmp/TAG.out, stderr in TAG.err, exit
#                            status in $report_status
#   report_run_damaged TAG ARGS...
#                            the same on damaged input, killed after
#                            $report_time_limit seconds (exit status 124:
#                            babeltrace2 alone loops forever on some);
#                            babeltrace2 2.0 leaks on its own error paths
#                            (the event it was decoding when a packet ends,
#                            the metadata parser's state), so a sanitizer
#                            build checks those runs for memory errors but
#                            not leaks
#   report_use_dir DIR       keep the scratch files in DIR instead (a test
#                            whose other cleanup replaces the EXIT trap)
#   report_exits TAG STATUS  the run exited with STATUS: a crash (a signal,
#                            a sanitizer abort) never passes
#   report_says TAG TEXT     its stderr contains TEXT
#   report_value TAG EXPR    the value of the Python expression EXPR of TAG's
#                            JSON report (d) and the truth make-ctf.py
#                            printed into $report_tmp/truth.json (t)
#   report_traced_setup "$@" the start of a test that traces memory-workload
#                            on the simulator: lttng_private_ns with the
#                            script's arguments, trace_locate, report_locate,
#                            a private session daemon (or fail and end);
#                            sets $report_workload and keeps the scratch
#                            files in $lttng_tmp, and $report_leak_site: the
#                            site of the allocations memory-workload's leak
#                            scenario keeps, its NVTX range and the line of
#                            its source that makes them (the report names it
#                            from their call stacks)

report_locate() {
	report_here=$(cd "$(dirname "$0")" && pwd)
	report_builddir=${CUDATRACE_BUILDDIR:-$(cd "$report_here/../.." && pwd)}
	report_cmd=${CUDATRACE:-$report_builddir/cli/cudatrace}
	report_python=${PYTHON3:-python3}
	[ -x "$report_cmd" ] || tap_fail_all "the cudatrace command is not built ($report_cmd)"
	"$report_python" -c 'import json' 2>/dev/null ||
		tap_fail_all "$report_python does not run (Debian: python3)"
	report_tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-report.XXXXXX") ||
		tap_fail_all "cannot make a temporary directory"
	trap 'rm -rf "$report_tmp"' EXIT
}

report_use_dir() {
	rm -rf "$report_tmp"
	report_tmp=$1/report
	mkdir -p "$report_tmp"
}

report_run() {
	report_tag=$1
	shift
	report_status=0
	$report_limit "$report_cmd" report "$@" >"$report_tmp/$report_tag.out" \
		2>"$report_tmp/$report_tag.err" || report_status=$?
}

# report_synthetic SCENARIO: make-ctf.py's SCENARIO trace in $report_tmp/SCENARIO,
# its truth in $report_tmp/truth.json; its reports "json" and "text" (4
# tests), and its GPU-time trace exported to $report_tmp/gpu-time, read
# back by babeltrace2 into $report_tmp/gpu-time.txt (2 tests; export's
# stderr in $report_tmp/export.err).
report_synthetic() {
	"$report_python" "$report_here/make-ctf.py" "$1" "$report_tmp/$1" \
		>"$report_tmp/truth.json" || tap_fail_all "make-ctf.py makes the trace $1"
	report_run json --format=json "$report_tmp/$1"
	report_exits json 0
	report_run text "$report_tmp/$1"
	report_exits text 0
	report_export_status=0
	"$report_cmd" export --format ctf -o "$report_tmp/gpu-time" "$report_tmp/$1" \
		>"$report_tmp/export.out" 2>"$report_tmp/export.err" || report_export_status=$?
	is "export: exits 0" "$report_export_status" 0 || sed 's/^/#   /' "$report_tmp/export.err"
	babeltrace2 "$report_tmp/gpu-time" >"$report_tmp/gpu-time.txt" 2>"$report_tmp/gpu-time.err"
	is "export: babeltrace2 reads the GPU-time trace" "$?" 0
}

# Seconds a run on damaged input may take: a sanitizer build, on a loaded machine.
report_time_limit=120
report_limit=

report_run_damaged() {
	report_asan=${ASAN_OPTIONS:-}
	ASAN_OPTIONS="${report_asan:+$report_asan:}detect_leaks=0"
	export ASAN_OPTIONS
	report_limit="timeout -k 10 $report_time_limit"
	report_run "$@"
	report_limit=
	ASAN_OPTIONS=$report_asan
}

report_exits() {
	if [ "$report_status" = "$2" ]; then
		tap_result 0 "$1: exits $2"
		return 0
	fi
	tap_result 1 "$1: exits $2"
	[ "$report_status" = 124 ] && diag "  still running after $report_time_limit s: killed"
	diag "  exit status $report_status; stderr:"
	head -n 10 "$report_tmp/$1.err" | sed 's/^/#   /'
	return 1
}

report_says() {
	if grep -q -- "$2" "$report_tmp/$1.err"; then
		tap_result 0 "$1: says '$2'"
	else
		tap_result 1 "$1: says '$2'"
		head -n 5 "$report_tmp/$1.err" | sed 's/^/#   /'
	fi
}

report_value() {
	"$report_python" -c "import json,sys
d = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
print($2)" "$report_tmp/$1.out" "$report_tmp/truth.json" 2>/dev/null
}

report_traced_setup() {
	lttng_private_ns "$@"
	trace_locate
	[ -e "$trace_simdir/libcuda.so.1" ] ||
		tap_fail_all "the simulated GPU is not built ($trace_simdir/libcuda.so.1)"
	trace_require_lib
	report_locate
	report_workload=${TESTS_BUILDDIR:-$report_builddir/tests}/analyzers/memory-workload
	[ -x "$report_workload" ] || tap_fail_all "memory-workload is not built ($report_workload)"
	report_leak_site="train/step:leak (memory-workload.c:$(grep -n 'cudaMalloc(&kept, MIB)' \
		"$report_here/memory-workload.c" | cut -d: -f1))"
	trace_daemon_or_fail
	# the daemon's cleanup (its EXIT trap) removes $lttng_tmp
	report_use_dir "$lttng_tmp"
}
