#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace examples/cuda/transfers (copies, memsets, launches; two rounds) and
# compare the trace with the ledger.
workload=transfers
workload_args=2
. "$(dirname "$0")/workload.sh"
