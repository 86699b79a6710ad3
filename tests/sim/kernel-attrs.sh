#!/bin/sh
# SPDX-License-Identifier: MIT
#
# kernel-attrs.sh - run programs/drv-kernel-attrs (driver API) and
# programs/rt-kernel-attrs (runtime API, nvcc) on the simulator: what
# cuFuncGetAttribute / cudaFuncGetAttributes say of kernels whose PTX
# declares launch bounds, shared and local memory, clusters and device
# system calls; the documented limits of cuFuncSetAttribute and of a
# launch; cuCtxSetLimit / cudaDeviceSetLimit. Relays their TAP and checks
# the ledger: their launches, and an error line for every call that failed.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_tmpdir

for name in drv-kernel-attrs rt-kernel-attrs; do
	sim_program $name
	sim_run "$sim_tmp/$name.out" "$sim_tmp/$name.err" CUDASIM_LEDGER="$sim_tmp/$name.ledger" \
		"$sim_path"
	tap_relay $name "$sim_tmp/$name.out"
	sim_check_status $name
	sim_check_ledger "$sim_tmp/$name.ledger" "$sim_tmp/$name.out"
done
tap_done
