#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace examples/cuda/allocations (every allocation kind, one failure, one
# leak) and compare the trace with the ledger.
workload=allocations
workload_args=--leak
. "$(dirname "$0")/workload.sh"
