#!/bin/sh
# SPDX-License-Identifier: MIT
#
# occupancy.sh - run programs/drv-occupancy (cuOccupancy*, numbers worked
# out by hand from the device's limits) and programs/rt-occupancy (the
# runtime's calls and cuda_runtime.h's helpers against the toolkit's CUDA
# Occupancy Calculator) on the simulator, relay their TAP and check their
# ledgers: occupancy has no effect but the error lines of failed calls.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_tmpdir

for name in drv-occupancy rt-occupancy; do
	sim_program $name
	sim_run "$sim_tmp/$name.out" "$sim_tmp/$name.err" CUDASIM_LEDGER="$sim_tmp/$name.ledger" \
		"$sim_path"
	tap_relay $name "$sim_tmp/$name.out"
	sim_check_status $name
	sim_check_ledger "$sim_tmp/$name.ledger" "$sim_tmp/$name.out"
done
tap_done
