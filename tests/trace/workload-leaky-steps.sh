#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace examples/cuda/leaky-steps (a loop that leaks 1 MiB a step) and
# compare the trace with the ledger.
workload=leaky-steps
workload_args=6
. "$(dirname "$0")/workload.sh"
