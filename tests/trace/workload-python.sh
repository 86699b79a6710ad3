#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace examples/python/cudart_ctypes.py (the runtime through ctypes) and
# compare the trace with the ledger.
workload=python
workload_args=2
. "$(dirname "$0")/workload.sh"
