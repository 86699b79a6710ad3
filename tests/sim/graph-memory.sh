#!/bin/sh
# SPDX-License-Identifier: MIT
#
# graph-memory.sh - run programs/rt-graph-memory (graph memory nodes built
# node by node and captured from cudaMallocAsync/cudaFreeAsync) on the
# simulator, relay its TAP and check its ledger: each allocation and free
# a graph launch makes has its line, kind=graph, with the launch call, its
# stream and graph= node=; frees outside the graph have theirs; and the
# work of the launches is all there, in stream order.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_program rt-graph-memory
program=$sim_path
sim_tmpdir

sim_run "$sim_tmp/out" "$sim_tmp/err" CUDASIM_LEDGER="$sim_tmp/ledger" "$program"
tap_relay rt-graph-memory "$sim_tmp/out"
sim_check_status rt-graph-memory
sim_check_ledger "$sim_tmp/ledger" "$sim_tmp/out" --model
tap_done
