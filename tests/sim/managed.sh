#!/bin/sh
# SPDX-License-Identifier: MIT
#
# managed.sh - run programs/drv-managed (driver API, with CUPTI's Unified
# Memory counters) and programs/rt-managed (runtime API, nvcc) on a
# simulator with two devices, relay their TAP and check their ledgers:
# every prefetch has its op=prefetch line with the bytes it migrates in
# each direction, takes its place on its stream, and lasts what the timing
# model gives those bytes (pinned and peer bandwidths, each one different
# here so that a wrong one shows).

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_tmpdir

export CUDASIM_DEVICES=2 CUDASIM_BW_HTOD_PINNED=2e10 CUDASIM_BW_DTOH_PINNED=3e10 \
	CUDASIM_BW_PEER=4e10 CUDASIM_COPY_LATENCY_NS=2000

for name in drv-managed rt-managed; do
	sim_program $name
	sim_run "$sim_tmp/$name.out" "$sim_tmp/$name.err" CUDASIM_LEDGER="$sim_tmp/$name.ledger" \
		"$sim_path"
	tap_relay $name "$sim_tmp/$name.out"
	sim_check_status $name
	sim_check_ledger "$sim_tmp/$name.ledger" "$sim_tmp/$name.out" --model
done
tap_done
