#!/bin/sh
# SPDX-License-Identifier: MIT
#
# graphs.sh - trace programs/rt-graphs (stream capture, graphs built node by
# node, host functions) and programs/rt-graph-memory (graph memory nodes,
# built and captured from cudaMallocAsync/cudaFreeAsync) on the simulator,
# in both modes of CUDASIM_NESTED_DRIVER_CALLBACKS, and compare each trace
# with the whole ledger (check-trace.py): the copies, memsets, launches and
# stream-ordered allocations made on a capturing stream are no operations
# (the ledger has none); each graph launch is one graph_launch, and the
# kernels, copies and memsets it ran are GPU events with its correlation id
# and the ledger's GPU times; what graph launches allocate is left out, as
# the trace cannot see it; each host function has the call that enqueued
# it. Then the traces of the two modes are compared with each other.
# The report of each trace counts what the graph launches replayed as the
# ledger does, copies (transfers) as kernels (gpu-figures.py), and so does
# the GPU-time export (check-ctf-export.py); the Perfetto export has a
# slice for each of the ledger's copies.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"
. "$trace_here/../export/export-checks.sh"

trace_setup "$@"
for program in rt-graphs rt-graph-memory; do
	[ -x "$CUDATRACE_BUILDDIR/tests/programs/$program" ] ||
		tap_skip_all "programs/$program is not built (nvcc missing?)"
done
cudatrace="$trace_builddir/cli/cudatrace"
[ -x "$cudatrace" ] || tap_fail_all "cudatrace is not built ($cudatrace)"
trace_daemon_or_fail

# figures TAG: the report of TAG's trace, its GPU figures held against TAG's
# ledger; then both exports of it.
figures() {
	status=0
	"$cudatrace" report --format json --max-rows 0 -o "$lttng_tmp/$1.json" "$lttng_trace" \
		2>"$lttng_tmp/$1.report-err" || status=$?
	is "$1: cudatrace report succeeds" "$status" 0
	[ "$status" = 0 ] || sed 's/^/#   /' "$lttng_tmp/$1.report-err"
	"$trace_python" "$trace_srcdir/tests/cli/gpu-figures.py" "$lttng_tmp/$1.json" \
		"$lttng_tmp/$1.ledger" >"$lttng_tmp/$1.figures" 2>"$lttng_tmp/$1.figures-err" ||
		sed 's/^/#   /' "$lttng_tmp/$1.figures-err"
	ok "$1: the report has GPU figures" test -s "$lttng_tmp/$1.figures"
	while read -r what reported expected; do
		is "$1: the report's $what is the ledger's" "$reported" "$expected"
	done <"$lttng_tmp/$1.figures"
	# rt-graph-memory runs on one stream
	export_gpu_time "$1" --streams 1
	rm -rf "$export_out"
	status=0
	"$cudatrace" export --format perfetto -o "$lttng_tmp/$1.pftrace" "$lttng_trace" \
		2>"$lttng_tmp/$1.pf-err" || status=$?
	is "$1: the Perfetto export succeeds" "$status" 0
	# each copy slice names its direction and bytes, once per copy (interned names
	# are written once): the directions and sizes of the ledger's copies
	is "$1: the Perfetto export names the ledger's copies" \
		"$(grep -ao 'memcpy [A-Za-z]* [0-9]* bytes' "$lttng_tmp/$1.pftrace" | sort -u | tr '\n' ,)" \
		"$(sed -n 's/.* op=memcpy dir=\([A-Za-z]*\) .*bytes=\([0-9]*\) .*/memcpy \1 \2 bytes/p' \
			"$lttng_tmp/$1.ledger" | sort -u | tr '\n' ,)"
}

checks=readable,ops,live,corr,gputime,window

for program in rt-graphs rt-graph-memory; do
	cmd=$trace_builddir/tests/programs/$program
	extra=""
	[ "$program" = rt-graphs ] && extra=,hostfunc
	for mode in 0 1; do
		tag="$program-nested$mode"
		trace_session "$tag" || continue
		CUDASIM_NESTED_DRIVER_CALLBACKS=$mode
		export CUDASIM_NESTED_DRIVER_CALLBACKS
		trace_run "$tag" traced "$cmd"
		unset CUDASIM_NESTED_DRIVER_CALLBACKS
		lttng_session_end "$tag"
		is "$tag: exit status" "$trace_status" 0
		[ "$trace_status" = 0 ] || trace_show_err "$tag"
		tap_relay "$tag" "$lttng_tmp/$tag.out"
		if trace_read "$tag"; then
			trace_check "$tag" --checks "$checks$extra"
		fi
		figures "$tag"
	done
	"$trace_python" "$trace_checker" --compare "$lttng_tmp/$program-nested0.events" \
		"$lttng_tmp/$program-nested1.events" >"$lttng_tmp/$program-compare.tap" 2>&1
	tap_relay "$program: modes 0 and 1" "$lttng_tmp/$program-compare.tap"
done
tap_done
