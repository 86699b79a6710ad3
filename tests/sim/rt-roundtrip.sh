#!/bin/sh
# SPDX-License-Identifier: MIT
#
# rt-roundtrip.sh - run programs/rt-roundtrip (nvcc, runtime API) on the
# simulator with a small device and a slow pinned host-to-device link, relay
# its own TAP results, then check that the ledger agrees with what it says it
# did: every alloc, free, alloc_failed, memcpy, memset and launch, with its
# sizes, directions, host memory types and kernel names, and GPU times that
# follow the timing model.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_program rt-roundtrip
program=$sim_path
sim_tmpdir

# 64 MiB of device memory, 16 MiB of it taken by the context: the program
# fills the rest with 2 MiB blocks. A pinned HtoD copy of 1 MiB + 3 bytes
# takes 10.5 ms at 100 MB/s. Every bandwidth differs, so that a copy timed
# with the wrong one shows in the durations (check-ledger.py --model reads
# the same variables).
htod_pinned=1e8
latency=2000
export CUDASIM_DEVICE_MEMORY=64M CUDASIM_CONTEXT_MEMORY=16M \
	CUDASIM_BW_HTOD_PINNED=$htod_pinned CUDASIM_BW_HTOD_PAGEABLE=2e9 \
	CUDASIM_BW_DTOH_PINNED=3e9 CUDASIM_BW_DTOH_PAGEABLE=4e9 \
	CUDASIM_BW_DTOD=5e10 CUDASIM_BW_MEMSET=6e10 CUDASIM_BW_HTOH=7e9 \
	CUDASIM_COPY_LATENCY_NS=$latency CUDASIM_KERNEL_NS=7000 CUDASIM_LAUNCH_LATENCY_NS=3000

ledger=$sim_tmp/ledger
sim_run "$sim_tmp/out" "$sim_tmp/err" CUDASIM_LEDGER="$ledger" \
	"$program" --htod-pinned-bw=$htod_pinned --copy-latency-ns=$latency
tap_relay rt-roundtrip "$sim_tmp/out"
sim_check_status rt-roundtrip

sim_check_ledger "$ledger" "$sim_tmp/out" --model

# The device size the program saw is the one configured.
total=$(sed -n 's/^# fact total=//p' "$sim_tmp/out")
is "cudaMemGetInfo's total is CUDASIM_DEVICE_MEMORY" "$total" 67108864
tap_done
