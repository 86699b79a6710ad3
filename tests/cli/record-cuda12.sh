#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record` injects the tracer the driver can run: under a
# simulated CUDA 12.8 driver (an R570, older than the R580 CUPTI 13
# needs) the one built against CUPTI 12, libcudatrace-cuda12.so beside
# libcudatrace.so, and says so; under the simulator's own CUDA 13 driver
# libcudatrace.so, without a word; under a CUDA 11.8 driver, which no
# tracer runs on, a warning that says why. Against ground truth: the tracer's own
# record of the CUPTI it has (tracer_info's cupti_version) is the API
# version of the CUPTI 12 headers the CUDA 12 tracer was built with, and
# the simulator's under CUDA 13. The simulator has no CUPTI 12 yet: the
# real one the tracer brings finds no driver it knows and the program runs
# untraced, as the tracer says in one line, with its exit status and
# output as untraced.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
program="$trace_builddir/tests/programs/drv-roundtrip"
[ -x "$program" ] || tap_fail_all "programs/drv-roundtrip is not built"
lib12="$(dirname "$trace_lib")/libcudatrace-cuda12.so"
[ -e "$lib12" ] || tap_fail_all "libcudatrace-cuda12.so is not built ($lib12)"
[ -n "${CUDA12_HOME:-}" ] || tap_fail_all "CUDA12_HOME is not set (configure --with-cuda12)"

# The CUPTI API version of the CUDA 12 headers the tracer was built with.
cupti12=$(cli_cupti12_api)
[ -n "$cupti12" ] || tap_fail_all "no cupti_version.h in $CUDA12_HOME"

# ---- a CUDA 12.8 driver
# The real CUPTI 12 keeps a byte it allocated when it fails to initialise:
# NVIDIA's, not the program's, and LeakSanitizer (a build configured with
# --enable-sanitizers) would change the exit status for it.
no_leak_check="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
plain_status=0
CUDASIM_DRIVER_VERSION=12080 ASAN_OPTIONS=$no_leak_check "$program" >"$lttng_tmp/plain12.out" 2>&1 ||
	plain_status=$?
CUDASIM_DRIVER_VERSION=12080 ASAN_OPTIONS=$no_leak_check \
	cli_record cuda12 -o "$lttng_tmp/cuda12" -- "$program"
cli_status_is "CUDA 12.8 driver: record exits with the program's status" "$plain_status"
ok "CUDA 12.8 driver: record says it traces with CUPTI 12, and with which library" \
	cli_has cuda12 "the driver supports CUDA 12\\.8, older than CUPTI 13 needs: tracing with CUPTI 12 \\($(readlink -f "$lib12")\\)"
ok "CUDA 12.8 driver: the tracer says in one line that CUPTI cannot be used" \
	cli_has cuda12 "^cudatrace: cannot subscribe to CUPTI .*; the program runs untraced"
# The program's output but for its pid, timings and addresses, and the
# tracer's line, in TAG.program.
program_output() {
	grep -v '^cudatrace' "$lttng_tmp/$1.out" | sed -e '/^# fact pid=/d' -e 's/([0-9.]* ms)//' \
		-e 's/0x[0-9a-fA-F]\{1,\}/0xADDR/g' >"$lttng_tmp/$1.program"
}
program_output cuda12
program_output plain12
if cmp -s "$lttng_tmp/plain12.program" "$lttng_tmp/cuda12.program"; then
	tap_result 0 "CUDA 12.8 driver: the program's output is as untraced"
else
	tap_result 1 "CUDA 12.8 driver: the program's output is as untraced"
	diff "$lttng_tmp/plain12.program" "$lttng_tmp/cuda12.program" | head -n 20 | sed 's/^/#   /'
fi
if trace_read cuda12 "$lttng_tmp/cuda12"; then
	is "CUDA 12.8 driver: the tracer has the CUPTI 12 it was built against" \
		"$(cli_tracer_cupti cuda12)" "$cupti12"
fi

# ---- a CUDA 11.8 driver, which no tracer runs on
plain_status=0
CUDASIM_DRIVER_VERSION=11080 "$program" >/dev/null 2>&1 || plain_status=$?
CUDASIM_DRIVER_VERSION=11080 cli_record cuda11 -o "$lttng_tmp/cuda11" -- "$program"
cli_status_is "CUDA 11.8 driver: record exits with the program's status" "$plain_status"
ok "CUDA 11.8 driver: record warns that no tracer runs on it, and why" \
	cli_has cuda11 "warning: no tracer of cudatrace runs on this driver: the driver supports CUDA 11\.8: .*CUPTI 12, needs a driver of CUDA 12\.0 \(R525\).*: the program will run untraced"

# ---- the simulator's CUDA 13 driver
plain_status=0
"$program" >/dev/null 2>&1 || plain_status=$?
cli_record cuda13 -o "$lttng_tmp/cuda13" -- "$program"
cli_status_is "CUDA 13 driver: record exits with the program's status" "$plain_status"
ok "CUDA 13 driver: record says nothing of CUPTI 12" \
	sh -c "! grep -q 'CUPTI 12' '$lttng_tmp/cuda13.err'"
if trace_read cuda13 "$lttng_tmp/cuda13"; then
	is "CUDA 13 driver: the tracer has the simulator's CUPTI 13" \
		"$(cli_tracer_cupti cuda13)" \
		"$(sed -n 's/^#define CUPTI_API_VERSION \([0-9]*\).*/\1/p' "$CUDA_HOME/include/cupti_version.h")"
fi
tap_done
