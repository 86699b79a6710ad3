#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A runtime program under a driver too old for its runtime, recorded:
# the runtime refuses to start (cudaErrorInsufficientDriver) before the
# driver ever loads the tracer, yet the report names both versions, with
# the rule, from what `cudatrace record` kept beside the trace: the
# driver's CUDA version (cudatrace.info's driver_cuda) and the objects the
# program loaded (objects-PID, from the audit library in LD_AUDIT).
# Against the program's own printout (programs/rt-refused: the versions
# cudaRuntimeGetVersion and cudaDriverGetVersion give, and the error) and
# the files themselves (readelf). Its runtime comes from outside the
# toolkit CUDA_HOME names: the report says so (unexpected-location). The
# same program under a driver new enough, with CUDA_HOME naming where its
# libraries are, has no finding, and an LD_AUDIT of the user's stays.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
command -v readelf >/dev/null 2>&1 || tap_fail_all "readelf is not installed (Debian: binutils)"
program="$trace_builddir/tests/programs/rt-refused"
[ -x "$program" ] || tap_fail_all "programs/rt-refused is not built"

# fact TAG NAME: the program's "# fact NAME=VALUE".
fact() {
	sed -n "s/^# fact $2=//p" "$lttng_tmp/$1.out" | head -n 1
}

# envjson TAG EXPRESSION: a Python expression over the report's
# environment entry of TAG's process (p) and its findings by id (f: id ->
# list of "what").
envjson() {
	"$trace_python" "$cli_here/../lib/environment-entry.py" "$lttng_tmp/$1.json" \
		"$(fact "$1" pid)" "$2"
}

# report TAG: the report of TAG's trace as JSON, in TAG.json; one test.
report() {
	report_status=0
	"$cli_bin" report --format=json -o "$lttng_tmp/$1.json" "$lttng_tmp/$1" \
		2>"$lttng_tmp/$1.report.err" || report_status=$?
	is "$1: the report is made" "$report_status" 0 || sed 's/^/# /' "$lttng_tmp/$1.report.err"
	"$cli_bin" report -o "$lttng_tmp/$1.txt" "$lttng_tmp/$1" 2>/dev/null || :
}

# ---- a driver of CUDA 12.2 under a CUDA 13 runtime; a toolkit named that
# is not where the program's runtime comes from
toolkit="$lttng_tmp/toolkit"
mkdir -p "$toolkit"
CUDASIM_DRIVER_VERSION=12020 CUDA_HOME=$toolkit cli_record old -o "$lttng_tmp/old" -- "$program"
cli_status_is "old: record exits with the program's status" 1
ok "old: record says CUDA may have refused it, and how to see why" \
	cli_has old "no event was recorded, though rt-refused loaded CUDA's libraries.*cudatrace report $lttng_tmp/old"
is "old: the program says the runtime refused the driver" "$(fact old error)" \
	cudaErrorInsufficientDriver
driver=$(fact old driver)
runtime=$(fact old runtime)
is "old: the notes hold the driver's CUDA version the program saw" \
	"$(sed -n 's/^driver_cuda=//p' "$lttng_tmp/old/cudatrace.info")" "$driver"
is "old: ... and the driver's path" \
	"$(sed -n 's/^driver_path=//p' "$lttng_tmp/old/cudatrace.info")" "$trace_simdir/libcuda.so.1"
objects="$lttng_tmp/old/objects-$(fact old pid)"
cudart="$trace_simdir/libcudart.so.13"
line=$(grep "^$cudart	" "$objects" 2>/dev/null)
ok "old: the program's list of objects names its libcudart" test -n "$line"
is "old: with its soname" "$(echo "$line" | cut -f2)" libcudart.so.13
is "old: with its build id (readelf -n)" "$(echo "$line" | cut -f3)" \
	"$(readelf -n "$cudart" | sed -n 's/^ *Build ID: *//p')"
is "old: with the file it is" "$(echo "$line" | cut -f4)" "$(readlink -f "$cudart")"
report old
text_driver=$(echo "$driver" | awk '{ printf "%d.%d", $1 / 1000, $1 % 1000 / 10 }')
text_runtime=$(echo "$runtime" | awk '{ printf "%d.%d", $1 / 1000, $1 % 1000 / 10 }')
is "old: the process is listed though it left no event" "$(envjson old 'p["traced"]')" False
is "old: ... named after its program" "$(envjson old 'p["procname"]')" rt-refused
is "old: the report has the driver's CUDA version" \
	"$(envjson old 'p["driver"]["cuda_version"]')" "$text_driver"
is "old: ... and the runtime's, with its path" \
	"$(envjson old '(p["runtime"]["cuda_version"], p["runtime"]["path"])')" \
	"('$text_runtime', '$cudart')"
what=$(envjson old 'f.get("driver-too-old", [""])[0]')
ok "old: a driver-too-old finding names both versions" \
	cli_matches "$what" ".*driver supports CUDA $text_driver.*runtime is $text_runtime"
is "old: the notes say where CUDA's libraries are expected (CUDA_HOME)" \
	"$(sed -n 's/^library_places=//p' "$lttng_tmp/old/cudatrace.info")" "$(readlink -f "$toolkit")"
what=$(envjson old 'f.get("unexpected-location", [""])[0]')
ok "old: an unexpected-location finding names the runtime's directory and the toolkit" \
	cli_matches "$what" "libcudart comes from $trace_simdir, outside the expected places ($(readlink -f "$toolkit"))"
is "old: the report's diagnosis leads with it" "$("$trace_python" -c 'import json, sys
f = json.load(open(sys.argv[1]))["findings"][0]
print(f["severity"], f["kind"], f["verdict"], f["source"])' "$lttng_tmp/old.json")" \
	"critical compatibility driver-too-old environment[0].findings[0]"
ok "old: the text report's first page says it" grep -q \
	"driver supports CUDA $text_driver; this program's runtime is $text_runtime" \
	"$lttng_tmp/old.txt"
ok "old: ... with NVIDIA's rule" cli_matches \
	"$(envjson old '[x["rule"] for x in p["findings"] if x["id"] == "driver-too-old"]')" \
	".*Minor Version Compatibility"

# ---- the lists damaged: lines that are none, one too long to read, one
# cut short, a list of no pid; the report reads what it can
cp -R "$lttng_tmp/old" "$lttng_tmp/damaged"
list="$lttng_tmp/damaged/objects-$(fact old pid)"
{
	printf 'not a path\tx\n\t\t\t\n'
	head -c 20000 /dev/zero | tr '\0' /
	printf '\n'
	head -c 300 /dev/urandom
	printf '/cut/short'
} >>"$list"
printf 'garbage' >"$lttng_tmp/damaged/objects-abc"
cp "$lttng_tmp/old/objects-$(fact old pid)" "$lttng_tmp/damaged/objects-0"
report_status=0
"$cli_bin" report --format=json -o "$lttng_tmp/damaged.json" "$lttng_tmp/damaged" \
	2>"$lttng_tmp/damaged.report.err" || report_status=$?
is "damaged: the report is made" "$report_status" 0
ok "damaged: it still names both versions" cli_matches \
	"$("$trace_python" "$cli_here/../lib/environment-entry.py" "$lttng_tmp/damaged.json" \
		"$(fact old pid)" 'f.get("driver-too-old", [""])[0]')" \
	".*driver supports CUDA $text_driver.*runtime is $text_runtime"

# ---- the same program, the driver new enough, its libraries where
# CUDA_HOME says; the user's LD_AUDIT stays
user_audit="$lttng_tmp/no-such-audit.so"
CUDA_HOME=$trace_simdir LD_AUDIT=$user_audit cli_record new -o "$lttng_tmp/new" -- "$program"
cli_status_is "new: the program ran" 0
is "new: CUDA started" "$(fact new error)" cudaSuccess
report new
is "new: no finding" "$(envjson new 'p["findings"]')" "[]"
is "new: the process is the trace's" "$(envjson new 'p["traced"]')" True
is "new: the driver's CUDA version, from the trace" "$(envjson new 'p["driver"]["cuda_version"]')" \
	"$(fact new driver | awk '{ printf "%d.%d", $1 / 1000, $1 % 1000 / 10 }')"
ok "new: the user's audit library was asked first (ld.so says it cannot load it)" \
	grep -q "no-such-audit.so" "$lttng_tmp/new.err"
tap_done
