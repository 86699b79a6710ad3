#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace examples/cuda/threads (four threads on streams of their own) and
# compare the trace with the ledger.
workload=threads
workload_args="4 25"
. "$(dirname "$0")/workload.sh"
