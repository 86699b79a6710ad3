#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace examples/cuda/two-devices on a simulator with two devices, then
# `cudatrace export --format ctf` it: the GPU-time trace has a stream per
# device and CUDA stream, every operation at the ledger's GPU times
# (check-ctf-export.py).
workload=two-devices
CUDASIM_DEVICES=2
export CUDASIM_DEVICES

workload_extra_checks() {
	export_gpu_time "$1"
}

. "$(dirname "$0")/export-checks.sh"
. "$(dirname "$0")/../trace/workload.sh"
