#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace examples/cuda/two-devices on a simulator with two devices and
# compare the trace with the ledger; both devices appear in it.
workload=two-devices
CUDASIM_DEVICES=2
export CUDASIM_DEVICES

workload_extra_checks() {
	for device in 0 1; do
		allocs=$(grep -c "^event=cudatrace:mem_alloc .* device=$device .*kind=device" \
			"$lttng_tmp/$1.events" || :)
		is "device $device has one device allocation in the trace" "$allocs" 1
	done
	peer=$(grep -c '^event=cudatrace:memcpy .*direction=PtoP' "$lttng_tmp/$1.events" || :)
	is "the peer copy is one PtoP memcpy" "$peer" 1
}

. "$(dirname "$0")/workload.sh"
