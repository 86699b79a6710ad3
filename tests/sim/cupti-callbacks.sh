#!/bin/sh
# SPDX-License-Identifier: MIT
#
# cupti-callbacks.sh - CUPTI through an injection library, as a tracer sees
# it: run programs/rt-workload with CUDA_INJECTION64_PATH=libtestinject.so,
# then check-cupti.py compares the callbacks and activity records it got
# with the ledger. Twice: CUDASIM_NESTED_DRIVER_CALLBACKS=0 (no driver
# callbacks inside runtime calls) and =1 (nested LIFO, own ids).

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_require_python
sim_program rt-workload
program=$sim_path
sim_inject_lib testinject
inject=$sim_inject
sim_tmpdir

for nested in 0 1; do
	dir=$sim_tmp/nested$nested
	mkdir -p "$dir"
	sim_run "$dir/out" "$dir/err" \
		CUDA_INJECTION64_PATH="$inject" TESTINJECT_LOG="$dir/inject.log" \
		CUDASIM_LEDGER="$dir/ledger" CUDASIM_NESTED_DRIVER_CALLBACKS=$nested \
		CUDASIM_DEVICE_MEMORY=256M CUDASIM_CONTEXT_MEMORY=32M \
		"$program"
	tap_relay "nested=$nested: rt-workload" "$dir/out"
	sim_check_status "nested=$nested: rt-workload"
	"$PYTHON3" "$TESTS_SRCDIR/sim/check-cupti.py" api "$dir/ledger" "$dir/inject.log" \
		"$dir/out" --nested=$nested >"$dir/check" 2>&1
	tap_relay "nested=$nested: cupti" "$dir/check"
done
tap_done
