#!/bin/sh
# SPDX-License-Identifier: MIT
#
# graphs.sh - trace programs/rt-graphs (stream capture, graphs built node by
# node, host functions) on the simulator and compare the trace with the
# ledger. check-trace.py compares the operations the program made through
# API calls, with the checks that apply to a program using graphs:
# readable, live, gputime and window. Not ops and corr: libcudatrace
# reports the copies, memsets and launches made on a capturing stream as
# operations, though they only add graph nodes (the ledger has none), and
# the GPU work of a graph launch has no launch or copy call of its own.
# That work is checked here (sim/check-graph-trace.py): each ledger line of a
# graph-launched kernel, copy or memset is one gpu_kernel, gpu_memcpy or
# gpu_memset event with the correlation id of the cudaGraphLaunch and the
# ledger's GPU times, and that launch call is in the trace.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
program=$CUDATRACE_BUILDDIR/tests/programs/rt-graphs
[ -x "$program" ] || tap_skip_all "programs/rt-graphs is not built (nvcc missing?)"
trace_daemon_or_fail

if lttng_session_begin graphs; then
	trace_run traced traced "$program"
	lttng_session_end graphs
	is "rt-graphs traced exits 0" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err traced
	tap_relay rt-graphs "$lttng_tmp/traced.out"
	if trace_read traced; then
		# The operations of API calls: the ledger less the graph's work.
		grep -v ' graph=' "$lttng_tmp/traced.ledger" >"$lttng_tmp/calls.ledger"
		"$trace_python" "$trace_checker" --ledger "$lttng_tmp/calls.ledger" \
			--trace "$lttng_tmp/traced.events" --checks readable,live,gputime,window,hostfunc \
			>"$lttng_tmp/calls.tap" 2>&1
		tap_relay calls "$lttng_tmp/calls.tap"
		"$trace_python" "$trace_here/../sim/check-graph-trace.py" \
			--ledger "$lttng_tmp/traced.ledger" --trace "$lttng_tmp/traced.events" \
			>"$lttng_tmp/graph.tap" 2>&1
		tap_relay graph "$lttng_tmp/graph.tap"
	fi
else
	tap_result 1 "the LTTng session starts"
fi
tap_done
