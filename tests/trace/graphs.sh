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

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
for program in rt-graphs rt-graph-memory; do
	[ -x "$CUDATRACE_BUILDDIR/tests/programs/$program" ] ||
		tap_skip_all "programs/$program is not built (nvcc missing?)"
done
trace_daemon_or_fail

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
	done
	"$trace_python" "$trace_checker" --compare "$lttng_tmp/$program-nested0.events" \
		"$lttng_tmp/$program-nested1.events" >"$lttng_tmp/$program-compare.tap" 2>&1
	tap_relay "$program: modes 0 and 1" "$lttng_tmp/$program-compare.tap"
done
tap_done
