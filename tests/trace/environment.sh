#!/bin/sh
# SPDX-License-Identifier: MIT
#
# environment.sh - what a trace says of the process's CUDA environment,
# against the simulator's ledger and the files themselves:
#
#   - driver_info: the driver's CUDA version (the ledger's runtime_init
#     driver=) and NVML's driver version;
#   - library_load of libcudart: its path, soname, build id (readelf -n),
#     the version that copy reports (the ledger's runtime=), loaded at
#     start;
#   - library_load of the program, and module_load of its module: the
#     architectures of its fat binary (the ledger's module_load archs=),
#     for programs/rt-arch-sm90 on a 9.0 device and programs/rt-arch-ptx80
#     on an 8.0 one; module_load's device;
#   - module_load_failed of each module the driver refused
#     (programs/drv-arch: a cubin for sm_90 on an 8.0 device, PTX too new
#     for the driver): its error and its image's architectures, against
#     the ledger's module_load_failed;
#   - a library a Python process loads after CUDA started
#     (tests/trace/load-later.py: a second copy of libcudart): found later
#     (at_start 0), with the version it reports.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
command -v readelf >/dev/null 2>&1 || tap_fail_all "readelf is not installed (Debian: binutils)"
programs="$trace_builddir/tests/programs"
for program in rt-arch-sm90 rt-arch-ptx80 drv-arch drv-kernels.cubin drv-arch.fatbin; do
	[ -e "$programs/$program" ] ||
		tap_fail_all "programs/$program is not built (configure found no nvcc? NVIDIA's cuda-nvcc-13-0)"
done
trace_daemon_or_fail

# field TAG EVENT KEY=VALUE FIELD: FIELD of TAG's first EVENT whose KEY is
# VALUE (KEY=VALUE may be "-" for the first EVENT), decoded.
field() {
	"$trace_python" -c 'import sys, urllib.parse
tag, event, match, want = sys.argv[1:5]
for line in open(tag):
    pairs = dict(p.split("=", 1) for p in line.split() if "=" in p)
    if pairs.get("event") != "cudatrace:" + event:
        continue
    fields = {k: urllib.parse.unquote(v) for k, v in pairs.items()}
    if match != "-":
        key, value = match.split("=", 1)
        if fields.get(key) != value:
            continue
    print(fields.get(want, ""))
    break' "$lttng_tmp/$1.events" "$2" "$3" "$4"
}

# like STRING ERE: STRING matches ERE.
like() {
	printf '%s\n' "$1" | grep -Eq -- "$2" && return 0
	diag "'$1' does not match '$2'"
	return 1
}

# sorted LIST: a comma-separated list, sorted.
sorted() {
	echo "$1" | tr , '\n' | sort | tr '\n' , | sed 's/,$//'
}

# traced TAG [VAR=VALUE...] -- PROGRAM ARGS...: one session, one run,
# its trace read back.
traced() {
	trace_traced "$@" && trace_read "$1"
}

# ---- a runtime program on a 9.0 device
if traced sm90 -- "$programs/rt-arch-sm90" runs sm_90 sm_90 0; then
	is "sm90: driver_info has the driver's CUDA version" \
		"$(field sm90 driver_info - cuda_version)" "$(trace_ledger sm90 runtime_init driver)"
	ok "sm90: ... and NVML's driver version" \
		like "$(field sm90 driver_info - driver_version)" '^[0-9][0-9]*\.[0-9][0-9.]*$'
	cudart="$trace_simdir/libcudart.so.13"
	match="path=$cudart"
	is "sm90: library_load of $cudart" "$(field sm90 library_load "$match" path)" "$cudart"
	is "sm90: its soname" "$(field sm90 library_load "$match" soname)" libcudart.so.13
	is "sm90: its build id is the file's" "$(field sm90 library_load "$match" build_id)" \
		"$(readelf -n "$cudart" | sed -n 's/^ *Build ID: *//p')"
	is "sm90: its version is the one the runtime uses" \
		"$(field sm90 library_load "$match" version)" "$(trace_ledger sm90 runtime_init runtime)"
	is "sm90: it was loaded at start" "$(field sm90 library_load "$match" at_start)" 1
	program=$(readlink -f "$programs/rt-arch-sm90")
	is "sm90: the program's device code is the module's (ledger)" \
		"$(sorted "$(field sm90 library_load "path=$program" device_code)")" \
		"$(sorted "$(trace_ledger sm90 module_load archs)")"
	is "sm90: libcudart carries no device code" "$(field sm90 library_load "$match" device_code)" ""
	module="module=$(trace_ledger sm90 module_load module)"
	is "sm90: module_load has the architectures of the module's fat binary (ledger)" \
		"$(sorted "$(field sm90 module_load "$module" device_code)")" \
		"$(sorted "$(trace_ledger sm90 module_load archs)")"
	is "sm90: ... and the device of its context" "$(field sm90 module_load "$module" device)" 0
	is "sm90: NVML, which has no version function of the list, has no version" \
		"$(field sm90 library_load "path=$trace_simdir/libnvidia-ml.so.1" version)" ""
fi

# ---- PTX beside the cubin, on an 8.0 device
if traced ptx80 CUDASIM_COMPUTE_CAPABILITY=8.0 -- "$programs/rt-arch-ptx80" \
	runs compute_80,sm_90 compute_80 1; then
	program=$(readlink -f "$programs/rt-arch-ptx80")
	is "ptx80: the program's device code is the module's (ledger)" \
		"$(sorted "$(field ptx80 library_load "path=$program" device_code)")" \
		"$(sorted "$(trace_ledger ptx80 module_load archs)")"
	is "ptx80: module_load has the module's architectures, PTX too (ledger)" \
		"$(sorted "$(field ptx80 module_load "module=$(trace_ledger ptx80 module_load module)" \
			device_code)")" "$(sorted "$(trace_ledger ptx80 module_load archs)")"
fi

# ---- modules the driver refuses (programs/drv-arch with the driver API):
# each module_load_failed against the ledger's module_load_failed lines,
# in order: the error (cuda.h's CUresult) and the image's architectures.
cubin="$programs/drv-kernels.cubin"
fatbin="$programs/drv-arch.fatbin"
if traced refused CUDASIM_COMPUTE_CAPABILITY=8.0 CUDASIM_DRIVER_VERSION=12080 -- \
	"$programs/drv-arch" "$cubin" "$fatbin"; then
	failed=$("$trace_python" -c 'import sys, urllib.parse
codes = {"CUDA_ERROR_NO_BINARY_FOR_GPU": 209, "CUDA_ERROR_INVALID_PTX": 218,
         "CUDA_ERROR_JIT_COMPILER_NOT_FOUND": 221, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION": 222}
def pairs(line):
    return {k: urllib.parse.unquote(v) for k, v in
            (p.split("=", 1) for p in line.split() if "=" in p)}
ledger = [pairs(l) for l in open(sys.argv[1]) if "op=module_load_failed " in l]
events = [pairs(l) for l in open(sys.argv[2])
          if l.startswith("event=cudatrace:module_load_failed ")]
want = [(codes[x["result"]], sorted(x["archs"].split(","))) for x in ledger]
got = [(int(x["result"]), sorted(x["device_code"].split(","))) for x in events]
print(len(want), want == got, got, want)' "$lttng_tmp/refused.ledger" "$lttng_tmp/refused.events")
	ok "refused: the simulator refused modules (ledger: ${failed%% *})" test "${failed%% *}" -gt 1
	is "refused: a module_load_failed for each, with its error and architectures" \
		"$(echo "$failed" | cut -d' ' -f2)" True || diag "$failed"
	is "refused: ... on the device of the call's context" \
		"$(field refused module_load_failed - device)" 0
	# drv-arch loads the cubin, the fat binary, then PTX text of ISA 8.7
	# and 9.0: under a driver of 12.8 the last is refused, and only PTX
	# text has a PTX ISA version to give.
	is "refused: the PTX text the driver cannot compile has its PTX ISA version, no other" \
		"$(sed -n 's/^event=cudatrace:module_load_failed .*ptx_isa=\([0-9]*\).*$/\1/p' \
			"$lttng_tmp/refused.events" | tr '\n' ' ')" "0 0 90 "
fi

# ---- a cubin, then a fat binary, loaded with the driver API on 9.0: each
# module_load names its image's architectures (a single cubin's from its
# ELF header)
if traced loads -- "$programs/drv-arch" "$cubin" "$fatbin"; then
	modules=$("$trace_python" -c 'import sys, urllib.parse
def pairs(line):
    return {k: urllib.parse.unquote(v) for k, v in
            (p.split("=", 1) for p in line.split() if "=" in p)}
ledger = {x["module"]: sorted(x["archs"].split(",")) for x in
          (pairs(l) for l in open(sys.argv[1]) if "op=module_load " in l)}
events = {x["module"]: sorted(x["device_code"].split(",")) for x in
          (pairs(l) for l in open(sys.argv[2])
           if l.startswith("event=cudatrace:module_load "))}
print(" ".join(",".join(ledger[m]) + "=" + ",".join(events.get(m, ["-"]))
               for m in sorted(ledger, key=int)[:2]))' "$lttng_tmp/loads.ledger" "$lttng_tmp/loads.events")
	is "loads: the cubin's and the fat binary's module_load name their architectures (ledger)" \
		"$modules" "sm_90=sm_90 compute_80,sm_90=compute_80,sm_90"
fi

# ---- a library loaded after CUDA started
mkdir -p "$lttng_tmp/other"
copy="$lttng_tmp/other/libcudart.so.13.0.99"
cp "$trace_simdir/libcudart.so.13" "$copy"
# shellcheck disable=SC2046
if traced later $(trace_python_env) -- "$trace_python" "$trace_here/load-later.py" --wait 1 "$copy"; then
	later_version=$(sed -n "s|^# fact version $copy ||p" "$lttng_tmp/later.out")
	is "later: library_load of the copy loaded later" \
		"$(field later library_load "path=$copy" path)" "$copy"
	is "later: found after the start" "$(field later library_load "path=$copy" at_start)" 0
	is "later: with the version that copy reports ($later_version)" \
		"$(field later library_load "path=$copy" version)" "$later_version"
	is "later: the first copy is there too, loaded at start" \
		"$(field later library_load "path=$trace_simdir/libcudart.so.13" at_start)" 1
fi
tap_done
