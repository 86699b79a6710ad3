#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace doctor` on the simulator, in a private mount namespace:
#
#   - no session daemon: a warning (record starts one), exit status 0;
#     with no lttng-sessiond to start either, a failure and 1;
#   - a healthy setup (a daemon of the test's own, two simulated devices
#     of compute capability 8.6): every check passes, and the JSON says
#     what the simulator's ledger saw the runtime find (its version, the
#     driver's, the outcome of its initialisation) and the devices the
#     test asked for;
#   - a simulated CUDA 12.2 driver: the runtime fails as the ledger says,
#     the finding names both versions, exit status 1; the tracer it gets
#     is the one built against CUPTI 12 (libcudatrace-cuda12.so), whose
#     CUPTI has the API version of the CUDA 12 headers it was built with;
#     a copy of libcudatrace.so with no such sibling fails, and so does a
#     CUDA 11.8 driver, which no tracer runs on;
#   - no device, a tracing library that is not there or not one (no
#     InitializeInjection), and usage errors.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_without_daemon

# doctor TAG [VAR=VALUE...] [-- ARGS...]: `cudatrace doctor ARGS` with the
# variables set and the ledger in TAG.ledger; stdout in TAG.out, stderr in
# TAG.err, the exit status in doctor_status.
doctor() {
	doctor_tag=$1
	shift
	doctor_vars=""
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		doctor_vars="$doctor_vars $1"
		shift
	done
	[ $# -gt 0 ] && shift
	rm -f "$lttng_tmp/$doctor_tag.ledger"
	doctor_status=0
	# shellcheck disable=SC2086
	env CUDASIM_LEDGER="$lttng_tmp/$doctor_tag.ledger" $doctor_vars \
		timeout "${CLI_TIMEOUT:-120}" "$cli_bin" doctor "$@" \
		>"$lttng_tmp/$doctor_tag.out" 2>"$lttng_tmp/$doctor_tag.err" || doctor_status=$?
}

# json TAG EXPRESSION: the value of a Python expression over TAG.out's
# JSON (d), and over a dictionary of its checks by name (items).
json() {
	"$trace_python" -c 'import json, sys
d = json.load(open(sys.argv[1]))
items = {i["name"]: i for i in d["items"]}
print(eval(sys.argv[2]))' "$lttng_tmp/$1.out" "$2"
}

# ledger TAG FIELD: FIELD of the ledger's runtime_init line.
ledger() {
	sed -n "s/^.*op=runtime_init .*\\b$2=\\([^ ]*\\).*$/\\1/p" "$lttng_tmp/$1.ledger" | head -n 1
}

# cuda_text 12020: 12.2, as cuDriverGetVersion's encoding reads.
cuda_text() {
	echo "$(($1 / 1000)).$((($1 % 1000) / 10))"
}

state_is() { # TAG CHECK STATE
	doctor_state=$(json "$1" "items.get('$2', {}).get('state')")
	[ "$doctor_state" = "$3" ] && return 0
	diag "$1: '$2' is '$doctor_state', not '$3'"
	return 1
}

show_on_failure() {
	[ "$tap_failed" = 0 ] || sed 's/^/#   /' "$lttng_tmp/$1.out" | head -n 40
}

# ---- no session daemon
doctor no-daemon
is "no daemon: exit status 0 (record starts one)" "$doctor_status" 0
ok "no daemon: the check warns that none answers" \
	grep -q '^\[warn\] session daemon *none answers for this user' "$lttng_tmp/no-daemon.out"
ok "no daemon: the last line says tracing can work" \
	test "$(tail -n 1 "$lttng_tmp/no-daemon.out")" = "CUDA and tracing can work here."
doctor no-daemon-json -- --format json
is "no daemon, JSON: exit status 0" "$doctor_status" 0
ok "no daemon, JSON: the session daemon check is a warning" \
	state_is no-daemon-json "session daemon" warn
is "no daemon, JSON: ok is true" "$(json no-daemon-json 'd["ok"]')" True
show_on_failure no-daemon

doctor no-lttng LTTNG_SESSIOND_PATH="$lttng_tmp/no-such-sessiond" -- --format json
is "no lttng-sessiond: exit status 1" "$doctor_status" 1
ok "no lttng-sessiond: its check fails" state_is no-lttng lttng-sessiond fail
ok "no lttng-sessiond: no daemon can be started, a failure" \
	state_is no-lttng "session daemon" fail
is "no lttng-sessiond: ok is false" "$(json no-lttng 'd["ok"]')" False

# ---- a healthy setup
lttng_daemon_start || tap_fail_all "a private lttng-sessiond starts"
doctor healthy CUDASIM_DEVICES=2 CUDASIM_DEVICE_MEMORY=2G CUDASIM_COMPUTE_CAPABILITY=8.6 \
	-- --format json
is "healthy: exit status 0" "$doctor_status" 0
is "healthy: no check fails" \
	"$(json healthy '[i["name"] for i in d["items"] if i["state"] == "fail"]')" "[]"
ok "healthy: the session daemon answers" state_is healthy "session daemon" ok
ok "healthy: the tracer loads" state_is healthy tracer ok
is "healthy: the tracer checked is the build's" "$(json healthy 'd["tracer"]')" "$trace_lib"
ok "healthy: CUPTI is found with the tracer" state_is healthy CUPTI ok
ok "healthy: the runtime initialised, as the ledger says" \
	test "$(ledger healthy result)" = cudaSuccess
is "healthy: the runtime's initialisation in the report" \
	"$(json healthy 'd["runtime"]["initialisation"]')" "$(ledger healthy result)"
is "healthy: the driver's CUDA version is the one the runtime found" \
	"$(json healthy 'd["driver"]["cuda_version"]')" "$(cuda_text "$(ledger healthy driver)")"
is "healthy: the runtime's CUDA version is the runtime's own" \
	"$(json healthy 'd["runtime"]["cuda_version"]')" "$(cuda_text "$(ledger healthy runtime)")"
is "healthy: the runtime is the simulator's" \
	"$(json healthy 'd["runtime"]["path"]')" "$trace_simdir/libcudart.so.13"
is "healthy: two devices, compute capability 8.6, 2 GiB each" \
	"$(json healthy '[(x["compute_capability"], x["memory_bytes"]) for x in d["devices"]]')" \
	"[('8.6', 2147483648), ('8.6', 2147483648)]"
is "healthy: the CUDA 13 driver gets the tracer built against CUPTI 13" \
	"$(json healthy '(d["tracer_cupti"], items["tracer CUPTI"]["state"])')" "(13, 'ok')"
is "healthy: no finding is an error" \
	"$(json healthy '[f["id"] for f in d["findings"] if f["severity"] == "error"]')" "[]"
show_on_failure healthy

# ---- an old driver
doctor old-driver CUDASIM_DRIVER_VERSION=12020 -- --format json
is "old driver: exit status 1" "$doctor_status" 1
ok "old driver: the runtime fails to initialise (ledger)" \
	test "$(ledger old-driver result)" = cudaErrorInsufficientDriver
ok "old driver: the runtime check fails" state_is old-driver runtime fail
is "old driver: with the runtime's own error" \
	"$(json old-driver 'd["runtime"]["initialisation"]')" "$(ledger old-driver result)"
is "old driver: the driver's CUDA version" \
	"$(json old-driver 'd["driver"]["cuda_version"]')" "$(cuda_text "$(ledger old-driver driver)")"
old_what=$(json old-driver '[f["what"] for f in d["findings"] if f["id"] == "driver-too-old"]')
old_driver=$(cuda_text "$(ledger old-driver driver)")
old_runtime=$(cuda_text "$(ledger old-driver runtime)")
ok "old driver: a driver-too-old finding names the driver's CUDA $old_driver" \
	cli_matches "$old_what" ".*the driver supports CUDA $old_driver"
ok "old driver: ... and the runtime's $old_runtime" \
	cli_matches "$old_what" ".*runtime is $old_runtime"
ok "old driver: ... and the driver branch NVML reports" \
	cli_matches "$old_what" ".*(driver $(json old-driver 'd["driver"]["version"].split(".")[0]'))"
doctor old-driver-text CUDASIM_DRIVER_VERSION=12020
ok "old driver, text: the runtime line says why" \
	grep -q '^\[FAIL\] runtime .*cudaErrorInsufficientDriver' "$lttng_tmp/old-driver-text.out"
ok "old driver, text: the finding is an error" \
	grep -q '^  error: the driver supports CUDA' "$lttng_tmp/old-driver-text.out"
show_on_failure old-driver-text

# ---- the tracer an old driver gets
if [ -n "${CUDA12_HOME:-}" ]; then
	is "old driver: the tracer is the one built against CUPTI 12, beside the build's" \
		"$(json old-driver 'd["tracer"]')" "$(dirname "$trace_lib")/libcudatrace-cuda12.so"
	is "old driver: which and why" \
		"$(json old-driver '(d["tracer_cupti"], items["tracer CUPTI"]["state"])')" "(12, 'ok')"
	ok "old driver: the why names the driver's CUDA version and NVIDIA's rules" \
		cli_matches "$(json old-driver 'items["tracer CUPTI"]["detail"]')" \
		"CUPTI 12 (libcudatrace-cuda12.so): the driver supports CUDA $old_driver: CUPTI 13 needs a driver of CUDA 13.0 (R580).*CUPTI Compatibility and Requirements.*Minor Version Compatibility"
	is "old driver: its CUPTI has the API version of the CUDA 12 headers" \
		"$(json old-driver 'items["CUPTI"]["detail"].split()[-1]')" \
		"$(sed -n 's/^#define CUPTI_API_VERSION \([0-9]*\).*/\1/p' \
			"$CUDA12_HOME/include/cupti_version.h")"
else
	# configured --without-cuda12: the build has no tracer for this driver
	ok "old driver: the tracer built against CUPTI 12 is missing, says the tracer check" \
		state_is old-driver "tracer CUPTI" fail
fi
alone="$lttng_tmp/alone"
mkdir -p "$alone"
cp "$trace_lib" "$alone/libcudatrace.so"
doctor alone CUDASIM_DRIVER_VERSION=12020 -- --format json --library="$alone/libcudatrace.so"
ok "old driver, a libcudatrace.so alone: the tracer check fails" \
	state_is alone "tracer CUPTI" fail
ok "old driver, a libcudatrace.so alone: it says which is missing, and where" \
	cli_matches "$(json alone 'items["tracer CUPTI"]["detail"]')" \
	"CUPTI 12: libcudatrace-cuda12.so is not beside $alone/libcudatrace.so: the driver supports CUDA 12.2"
doctor older-driver CUDASIM_DRIVER_VERSION=11080 -- --format json
is "CUDA 11.8 driver: exit status 1" "$doctor_status" 1
ok "CUDA 11.8 driver: no tracer runs on it, says the tracer check" \
	cli_matches "$(json older-driver 'items["tracer CUPTI"]["detail"]')" \
	"no tracer runs on this driver: the driver supports CUDA 11.8: .*CUPTI 12, needs a driver of CUDA 12.0 (R525)"
is "CUDA 11.8 driver: no tracer in the JSON" \
	"$(json older-driver '(d["tracer_cupti"], d["tracer"])')" "(None, None)"

# ---- no device, no tracer
doctor no-device CUDASIM_NO_DEVICE=1
is "no device: exit status 1" "$doctor_status" 1
ok "no device: cuInit's error is shown" \
	grep -q '^\[FAIL\] devices *cuInit fails: CUDA_ERROR_NO_DEVICE' "$lttng_tmp/no-device.out"
doctor no-tracer -- --library="$lttng_tmp/no-such-lib.so"
is "no tracer: exit status 1" "$doctor_status" 1
ok "no tracer: the tracer check says what is wrong with the one named" \
	grep -q "^\[FAIL\] tracer *$lttng_tmp/no-such-lib.so cannot be used: " "$lttng_tmp/no-tracer.out"
doctor not-tracer -- --library="$trace_simdir/libnvidia-ml.so.1"
is "not a tracer: exit status 1" "$doctor_status" 1
ok "not a tracer: it has no InitializeInjection, says the tracer check" \
	grep -q '^\[FAIL\] tracer .*cannot be used: .*InitializeInjection' "$lttng_tmp/not-tracer.out"

# ---- usage
doctor bad-format -- --format xml
is "--format xml: exit status 2" "$doctor_status" 2
ok "--format xml: says what the formats are" grep -q 'text or json' "$lttng_tmp/bad-format.err"
doctor extra -- something
is "an argument: exit status 2" "$doctor_status" 2
tap_done
