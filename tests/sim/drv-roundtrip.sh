#!/bin/sh
# SPDX-License-Identifier: MIT
#
# drv-roundtrip.sh - run programs/drv-roundtrip (gcc, driver API) on the
# simulator, with the cubin of drv-kernels.cu that nvcc built, relay its
# own TAP results, then check the ledger against what it says it did and
# against the timing model.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_program drv-roundtrip
program=$sim_path
sim_tmpdir

# Without the cubin (nvcc builds it) the program fails its module tests.
cubin=$TESTS_BUILDDIR/programs/drv-kernels.cubin
if [ -e "$cubin" ]; then
	set -- "--cubin=$cubin"
else
	diag "programs/drv-kernels.cubin is not built (configure found no nvcc? NVIDIA's cuda-nvcc-13-0)"
	set --
fi

htod_pinned=2e8
latency=2500
export CUDASIM_DEVICE_MEMORY=128M CUDASIM_CONTEXT_MEMORY=8M \
	CUDASIM_BW_HTOD_PINNED=$htod_pinned CUDASIM_BW_HTOD_PAGEABLE=3e9 \
	CUDASIM_BW_DTOH_PINNED=4e9 CUDASIM_BW_DTOH_PAGEABLE=5e9 CUDASIM_BW_DTOD=6e10 \
	CUDASIM_BW_MEMSET=7e10 CUDASIM_BW_HTOH=8e9 CUDASIM_COPY_LATENCY_NS=$latency \
	CUDASIM_KERNEL_NS=9000

sim_run "$sim_tmp/out" "$sim_tmp/err" CUDASIM_LEDGER="$sim_tmp/ledger" "$program" "$@" \
	--htod-pinned-bw=$htod_pinned --copy-latency-ns=$latency
tap_relay drv-roundtrip "$sim_tmp/out"
sim_check_status drv-roundtrip

sim_check_ledger "$sim_tmp/ledger" "$sim_tmp/out" --model
total=$(sed -n 's/^# fact total=//p' "$sim_tmp/out")
is "cuMemGetInfo's total is CUDASIM_DEVICE_MEMORY" "$total" 134217728
tap_done
