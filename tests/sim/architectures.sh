#!/bin/sh
# SPDX-License-Identifier: MIT
#
# architectures.sh - the module loader against the device's compute
# capability (CUDASIM_COMPUTE_CAPABILITY) and the driver's CUDA version
# (CUDASIM_DRIVER_VERSION):
#  - programs/rt-arch-sm90 (nvcc, sm_90 only) launches on a 9.0 device
#    and fails with cudaErrorNoKernelImageForDevice on an 8.0 one;
#  - programs/rt-arch-ptx80 (compute_80 PTX beside the sm_90 cubin) runs
#    its cubin on 9.0 and JIT-compiles its PTX on 8.0 and 8.6;
#  - programs/drv-arch loads a cubin, a fat binary and PTX of two ISA
#    versions through the driver API on several devices and drivers.
# Relays their TAP and checks the ledger: module_load with the
# architectures found and the one chosen, module_load_failed with why.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_tmpdir

# run TAG PROGRAM ARGS... -- VAR=VALUE...
run() {
	tag=$1
	program=$2
	shift 2
	args=""
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		args="$args $1"
		shift
	done
	[ $# -gt 0 ] && shift
	sim_program "$program"
	# shellcheck disable=SC2086
	sim_run "$sim_tmp/$tag.out" "$sim_tmp/$tag.err" CUDASIM_LEDGER="$sim_tmp/$tag.ledger" \
		"$@" "$sim_path" $args
	tap_relay "$tag" "$sim_tmp/$tag.out"
	sim_check_status "$tag"
	sim_check_ledger "$sim_tmp/$tag.ledger" "$sim_tmp/$tag.out"
}

run sm90-on-9.0 rt-arch-sm90 runs sm_90 sm_90 0 --
run sm90-on-8.0 rt-arch-sm90 no-image sm_90 sm_80 -- CUDASIM_COMPUTE_CAPABILITY=8.0
run sm90-on-9.0a rt-arch-sm90 runs sm_90 sm_90 0 -- CUDASIM_COMPUTE_CAPABILITY=9.0
run ptx80-on-9.0 rt-arch-ptx80 runs compute_80,sm_90 sm_90 0 --
run ptx80-on-8.0 rt-arch-ptx80 runs compute_80,sm_90 compute_80 1 -- \
	CUDASIM_COMPUTE_CAPABILITY=8.0
run ptx80-on-8.6 rt-arch-ptx80 runs compute_80,sm_90 compute_80 1 -- \
	CUDASIM_COMPUTE_CAPABILITY=8.6
run ptx80-on-7.5 rt-arch-ptx80 no-image compute_80,sm_90 sm_75 -- \
	CUDASIM_COMPUTE_CAPABILITY=7.5

cubin=$TESTS_BUILDDIR/programs/drv-kernels.cubin
fatbin=$TESTS_BUILDDIR/programs/drv-arch.fatbin
[ -e "$fatbin" ] || tap_fail_all "programs/drv-arch.fatbin is not built (NVIDIA's cuda-nvcc-13-0)"
run drv-9.0 drv-arch "$cubin" "$fatbin" --
run drv-8.0 drv-arch "$cubin" "$fatbin" -- CUDASIM_COMPUTE_CAPABILITY=8.0
run drv-8.0-cuda-12.8 drv-arch "$cubin" "$fatbin" -- CUDASIM_COMPUTE_CAPABILITY=8.0 \
	CUDASIM_DRIVER_VERSION=12080
run drv-8.6-cuda-12.2 drv-arch "$cubin" "$fatbin" -- CUDASIM_COMPUTE_CAPABILITY=8.6 \
	CUDASIM_DRIVER_VERSION=12020
run drv-7.5 drv-arch "$cubin" "$fatbin" -- CUDASIM_COMPUTE_CAPABILITY=7.5
tap_done
