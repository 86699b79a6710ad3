#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace examples/cuda/threads (4 threads of 25 rounds, each with a stream
# of its own: CUPTI fills a buffer per thread and hands each back when it
# fills, so the trace's GPU records may come out of GPU-time order), then
# `cudatrace export --format ctf` it: every operation at the ledger's GPU
# times, in its stream, in order (check-ctf-export.py, which says how many
# records came out of order; test-gpu-reorder orders known disorder).
workload=threads
workload_args="4 25"

workload_extra_checks() {
	export_gpu_time "$1"
}

. "$(dirname "$0")/export-checks.sh"
. "$(dirname "$0")/../trace/workload.sh"
