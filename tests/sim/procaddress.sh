#!/bin/sh
# SPDX-License-Identifier: MIT
#
# procaddress.sh - run programs/drv-procaddress on the simulator: every
# function cuda.h declares, and its per-thread variant, looked up through
# cuGetProcAddress by its base name is the simulator's export of that
# name (implementation or stub); every PFN_name_vVERSION of cudaTypedefs.h
# gives that ABI version; and the runtime's cudaGetDriverEntryPoint* agree.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_program drv-procaddress
program=$sim_path
sim_tmpdir
lists=$TESTS_BUILDDIR/programs
for list in cuda-h-functions.txt cuda-h-per-thread.txt cuda-typedef-versions.txt; do
	[ -s "$lists/$list" ] || tap_fail_all "programs/$list is not built"
done

sim_run "$sim_tmp/out" "$sim_tmp/err" CUDASIM_LEDGER="$sim_tmp/ledger" "$program" \
	"$lists/cuda-h-functions.txt" "$lists/cuda-h-per-thread.txt" \
	"$lists/cuda-typedef-versions.txt"
tap_relay drv-procaddress "$sim_tmp/out"
sim_check_status drv-procaddress
sim_check_ledger "$sim_tmp/ledger" "$sim_tmp/out"
tap_done
