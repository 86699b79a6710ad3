#!/bin/sh
# SPDX-License-Identifier: MIT
#
# environment.sh - the simulated driver's CUDA version
# (CUDASIM_DRIVER_VERSION) and the devices' compute capability
# (CUDASIM_COMPUTE_CAPABILITY), as programs/env-versions sees them through
# the runtime, the driver and NVML: the defaults, a CUDA 12.2 driver under
# which the CUDA 13.0 runtime fails with cudaErrorInsufficientDriver, a
# compute capability 8.0 device, and values the simulator refuses (a line
# on stderr, the default kept). Relays its TAP and checks the ledger.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_tmpdir
sim_program env-versions

# run TAG DRIVER DRIVER_STRING MAJOR MINOR [VAR=VALUE...]
run() {
	tag=$1
	shift
	expected="$1 $2 $3 $4"
	shift 4
	sim_run "$sim_tmp/$tag.out" "$sim_tmp/$tag.err" CUDASIM_LEDGER="$sim_tmp/$tag.ledger" \
		"$@" "$sim_path" $expected
	tap_relay "$tag" "$sim_tmp/$tag.out"
	sim_check_status "$tag"
	sim_check_ledger "$sim_tmp/$tag.ledger" "$sim_tmp/$tag.out"
}

run default 13000 580.65.06 9 0
run cuda-12.2 12020 535.54.03 9 0 CUDASIM_DRIVER_VERSION=12020
run cuda-12.9 12090 575.51.03 9 0 CUDASIM_DRIVER_VERSION=12090
run cc-8.0 13000 580.65.06 8 0 CUDASIM_COMPUTE_CAPABILITY=8.0
run cc-12.1 13000 580.65.06 12 1 CUDASIM_COMPUTE_CAPABILITY=12.1

# A CUDA version no driver branch has (there was no CUDA 12.7), and a
# compute capability that is not MAJOR.MINOR: refused, defaults kept.
run refused 13000 580.65.06 9 0 CUDASIM_DRIVER_VERSION=12070 CUDASIM_COMPUTE_CAPABILITY=8
ok "refused: CUDASIM_DRIVER_VERSION=12070 is reported on stderr" \
	grep -q "ignoring CUDASIM_DRIVER_VERSION='12070'" "$sim_tmp/refused.err"
ok "refused: CUDASIM_COMPUTE_CAPABILITY=8 is reported on stderr" \
	grep -q "ignoring CUDASIM_COMPUTE_CAPABILITY='8'" "$sim_tmp/refused.err"
tap_done
