#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace examples/driver/driver-api (the driver API: VMM, pools, copies, a
# PTX kernel) and compare the trace with the ledger.
workload=driver-api
. "$(dirname "$0")/workload.sh"
