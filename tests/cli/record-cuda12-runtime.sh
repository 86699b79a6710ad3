#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record` of a runtime API program on the simulator's CUDA 12
# stack: programs/rt12-workload, built against the CUDA 12 headers and
# libcudart.so.12, runs on the simulated libcudart.so.12 and libcupti.so.12
# (tests/cudasim/cuda12) under a CUDA 12.9 driver (CUDASIM_DRIVER_VERSION),
# as `cudasim-env --cuda12` has it. Record picks libcudatrace-cuda12.so,
# the tracer built against CUPTI 12, and says so; the tracer subscribes to
# the simulated CUPTI 12 (the CUPTI its tracer_info names is CUPTI 12's
# API version); the program's exit status and output are as untraced; and
# the trace holds exactly the operations of the simulator's ledger (the
# ledger is the ground truth: check-trace.py), its runtime calls named by
# CUPTI 12's callback ids.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
program="$trace_builddir/tests/programs/rt12-workload"
[ -x "$program" ] || tap_fail_all "programs/rt12-workload is not built"
lib12="$(dirname "$trace_lib")/libcudatrace-cuda12.so"
[ -e "$lib12" ] || tap_fail_all "libcudatrace-cuda12.so is not built ($lib12)"
[ -e "$trace_simdir/cuda12/libcudart.so.12" ] ||
	tap_fail_all "the simulator's CUDA 12 flavour is not built ($trace_simdir/cuda12)"
cupti12=$(cli_cupti12_api)
[ -n "$cupti12" ] || tap_fail_all "no cupti_version.h in ${CUDA12_HOME:-CUDA12_HOME (unset)}"

# The CUDA 12 stack: the flavour's libraries on the path, a 12.9 driver.
LD_LIBRARY_PATH="$trace_simdir/cuda12:$LD_LIBRARY_PATH"
CUDASIM_DRIVER_VERSION=12090
export LD_LIBRARY_PATH CUDASIM_DRIVER_VERSION

plain_status=0
CUDASIM_LEDGER="$lttng_tmp/plain.ledger" "$program" >"$lttng_tmp/plain.out" \
	2>"$lttng_tmp/plain.err" || plain_status=$?
is "rt12-workload runs untraced on the CUDA 12 stack" "$plain_status" 0
[ "$plain_status" = 0 ] || sed 's/^/#   /' "$lttng_tmp/plain.err"

cli_record rt12 -o "$lttng_tmp/rt12" -- "$program"
cli_status_is "record exits with the program's status" "$plain_status"
ok "record says it traces with CUPTI 12, and with which library" \
	cli_has rt12 "the driver supports CUDA 12\\.9, older than CUPTI 13 needs: tracing with CUPTI 12 \\($(readlink -f "$lib12")\\)"
ok "the tracer subscribes to the simulated CUPTI 12" \
	cli_lacks "$lttng_tmp/rt12.err" "cannot subscribe to CUPTI"
ok "the program's output is as untraced" cmp -s "$lttng_tmp/plain.out" "$lttng_tmp/rt12.out"
cli_trace_checked rt12 "the trace reads back with babeltrace2"
is "the tracer had the CUPTI 12 it was built against" "$(cli_tracer_cupti rt12)" "$cupti12"

# The CUDA 12 entry points of the calls CUDA 13 renamed are what the
# program called (the ledger's api= is the exported function).
for api in cudaGetDeviceProperties_v2 cudaMemPrefetchAsync cudaMemPrefetchAsync_v2; do
	ok "the program called CUDA 12's $api" \
		grep -q " api=$api\\( \\|\$\\)" "$lttng_tmp/rt12.ledger"
done

# Every runtime call the trace names is named as CUPTI 12 names its
# callback id (cupti_runtime_cbid.h of the CUDA 12 headers: the name less
# its _vNNNNN suffix).
misnamed=$(awk -v cbids="$CUDA12_HOME/include/cupti_runtime_cbid.h" '
	BEGIN {
		while ((getline line < cbids) > 0)
			if (match(line, /CUPTI_RUNTIME_TRACE_CBID_[A-Za-z0-9_]+_v[0-9]+ *= *[0-9]+/)) {
				entry = substr(line, RSTART + 25, RLENGTH - 25)
				id = entry
				sub(/.*= */, "", id)
				sub(/_v[0-9]+ *=.*/, "", entry)
				name[id] = entry
			}
	}
	$1 == "event=cudatrace:api_name" && / domain=runtime / {
		id = $0
		sub(/.* cbid=/, "", id)
		sub(/ .*/, "", id)
		called = $0
		sub(/.* name=/, "", called)
		sub(/ .*/, "", called)
		named++
		if (name[id] != called)
			printf "%s(cbid %s, CUPTI 12: %s) ", called, id, name[id]
	}
	END { if (!named) print "no runtime call named" }' "$lttng_tmp/rt12.events")
is "the runtime calls in the trace have CUPTI 12's names for their callback ids" "$misnamed" ""
tap_done
