#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The report's environment section (doc/report-schema.md) on programs
# traced on the simulated GPU, against the simulator's ledger and what
# the programs themselves say:
#
#   no-image   programs/rt-arch-sm90 (nvcc, sm_90 only) on a compute
#              capability 8.0 device: the launch fails with
#              cudaErrorNoKernelImageForDevice; the report names both
#              architectures (no-code-for-device) and the failed call
#   jit        programs/rt-arch-ptx80 (compute_80 PTX beside the sm_90
#              cubin) on 8.0: it runs, and the report notes the JIT
#              (ptx-jit)
#   drv-jit    programs/drv-arch on 8.0, which loads a fat binary of the
#              same kind from memory: the module is listed with the
#              architectures of its image, and the JIT is noted for it;
#              the sm_90 cubin it also loads is refused: listed with its
#              error, and explained (no-code-for-device)
#   drv-old    the same under a driver of CUDA 12.8, which refuses its PTX
#              of ISA 9.0: explained with both versions (ptx-too-new)
#   two        a Python process that loads two releases of a library
#              (programs/nvrtc-12, nvrtc-13): both in the list with the
#              versions they report, and a duplicate-library finding
#
# A runtime under a driver too old for it never loads the tracer (the
# runtime fails before cuInit, which loads CUDA_INJECTION64_PATH): its
# report is made of what `cudatrace record` keeps beside the trace
# (tests/cli/record-refused.sh), and `cudatrace doctor` names both
# versions too (tests/cli/doctor.sh).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/lttng-session.sh"
. "$here/../lib/trace-run.sh"
. "$here/report-lib.sh"

report_traced_setup "$@"
programs="$trace_builddir/tests/programs"
for program in rt-arch-sm90 rt-arch-ptx80; do
	[ -x "$programs/$program" ] ||
		tap_fail_all "programs/$program is not built (configure found no nvcc? NVIDIA's cuda-nvcc-13-0)"
done
for lib in nvrtc-12/libnvrtc.so.12 nvrtc-13/libnvrtc.so.13 drv-arch drv-kernels.cubin \
	drv-arch.fatbin; do
	[ -e "$programs/$lib" ] || tap_fail_all "programs/$lib is not built"
done

# traced TAG [VAR=VALUE...] -- PROGRAM ARGS...: one session, one run,
# its report as JSON in $report_tmp/TAG.out.
traced() {
	trace_traced "$@" || return 1
	report_run "$1" --format=json "$lttng_trace"
	report_exits "$1" 0
}

# env TAG EXPRESSION: a Python expression over the environment of TAG's
# process (p, the report's environment[] entry of its pid) and its
# findings by id (f: id -> list of "what").
envjson() {
	pid=$(sed -n 's/^# fact pid=//p' "$lttng_tmp/$1.out" | head -n 1)
	"$report_python" "$here/../lib/environment-entry.py" "$report_tmp/$1.out" "$pid" "$2"
}

# contains TEXT PART...: TEXT holds every PART.
contains() {
	contains_text=$1
	shift
	for part in "$@"; do
		case $contains_text in
		*"$part"*) ;;
		*)
			diag "'$contains_text' lacks '$part'"
			return 1
			;;
		esac
	done
}

# ---- sm_90 only, on compute capability 8.0
if traced no-image CUDASIM_COMPUTE_CAPABILITY=8.0 -- "$programs/rt-arch-sm90" no-image sm_90 sm_80; then
	archs=$(trace_ledger no-image module_load_failed archs)
	device=$(trace_ledger no-image module_load_failed device)
	cc=$(echo "$device" | sed 's/^sm_\([0-9]*\)\([0-9]\)$/\1.\2/')
	ok "no-image: the simulator refused the module (ledger: $archs on $device)" test -n "$archs"
	is "no-image: the device's compute capability" \
		"$(envjson no-image '[d["compute_capability"] for d in p["devices"]]')" "['$cc']"
	program=$(readlink -f "$programs/rt-arch-sm90")
	is "no-image: the program's device code" \
		"$(envjson no-image "[l['device_code'] for l in p['libraries'] if l['path'] == '$program']")" \
		"['$archs']"
	what=$(envjson no-image 'f.get("no-code-for-device", [""])[0]')
	ok "no-image: a no-code-for-device finding names the program, $archs and $cc" \
		contains "$what" "$program" "compiled for $archs only" "compute capability $cc"
	is "no-image: an error" "$(envjson no-image '[x["severity"] for x in p["findings"]]')" "['error']"
	is "no-image: the launch's error is among the refused calls" \
		"$(envjson no-image '[x["code"] for x in p["errors"] if "LaunchKernel" in (x["api"] or "")]')" \
		"[209]"
fi

# ---- compute_80 PTX beside the sm_90 cubin, on 8.0
if traced jit CUDASIM_COMPUTE_CAPABILITY=8.0 -- "$programs/rt-arch-ptx80" \
	runs compute_80,sm_90 compute_80 1; then
	is "jit: the simulator JIT-compiled (ledger)" "$(trace_ledger jit module_load jit)" 1
	chosen=$(trace_ledger jit module_load chosen)
	what=$(envjson jit 'f.get("ptx-jit", [""])[0]')
	ok "jit: a ptx-jit note names the PTX the driver compiled ($chosen)" \
		contains "$what" "its $chosen PTX will be JIT-compiled" "compute capability 8.0"
	is "jit: a note, no error" "$(envjson jit '[x["severity"] for x in p["findings"]]')" "['note']"
	is "jit: no call refused" "$(envjson jit 'p["errors"]')" "[]"
fi

# ---- a fat binary the program loads from memory (cuModuleLoadData), on 8.0
if traced drv-jit CUDASIM_COMPUTE_CAPABILITY=8.0 -- "$programs/drv-arch" \
	"$programs/drv-kernels.cubin" "$programs/drv-arch.fatbin"; then
	module=$(trace_ledger drv-jit module_load module)
	archs=$(trace_ledger drv-jit module_load archs)
	is "drv-jit: the module is listed with the architectures of its image (ledger: $archs)" \
		"$(envjson drv-jit "[(m['module'], sorted(m['device_code'].split(','))) for m in p['modules'] if m['loaded']] == [($module, sorted('$archs'.split(',')))]")" \
		True
	what=$(envjson drv-jit 'f.get("ptx-jit", [""])[0]')
	ok "drv-jit: a ptx-jit note names the module, whose PTX the driver compiled" \
		contains "$what" "module $module: " "compute capability 8.0" \
		"its $(trace_ledger drv-jit module_load chosen) PTX will be JIT-compiled"
	refused=$(trace_ledger drv-jit module_load_failed archs)
	is "drv-jit: the cubin the driver refused is listed, with its error (ledger: $refused)" \
		"$(envjson drv-jit "[(m['device_code'], m['result']) for m in p['modules'] if not m['loaded']]")" \
		"[('$refused', 209)]"
	what=$(envjson drv-jit 'f.get("no-code-for-device", [""])[0]')
	ok "drv-jit: a no-code-for-device finding names both architectures" \
		contains "$what" "a module the driver refused: compiled for $refused only" \
		"the device is compute capability 8.0"
fi

# ---- the same under a driver of CUDA 12.8: its PTX of ISA 9.0 (CUDA 13.0)
# is refused (CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
if traced drv-old CUDASIM_COMPUTE_CAPABILITY=8.0 CUDASIM_DRIVER_VERSION=12080 -- \
	"$programs/drv-arch" "$programs/drv-kernels.cubin" "$programs/drv-arch.fatbin"; then
	ok "drv-old: the simulator refused PTX as too new (ledger)" \
		grep -q "op=module_load_failed .*result=CUDA_ERROR_UNSUPPORTED_PTX_VERSION" \
		"$lttng_tmp/drv-old.ledger"
	what=$(envjson drv-old 'f.get("ptx-too-new", [""])[0]')
	ok "drv-old: a ptx-too-new finding names the PTX ISA and both CUDA versions" \
		contains "$what" "a module the driver refused: " "PTX ISA 9.0, which came with CUDA 13.0" \
		"the driver supports CUDA 12.8"
	is "drv-old: no JIT is noted of a module the driver refused" \
		"$(envjson drv-old '[w for w in f.get("ptx-jit", []) if "refused" in w]')" "[]"
fi

# ---- two releases of one library in a Python process
nvrtc12="$programs/nvrtc-12/libnvrtc.so.12"
nvrtc13="$programs/nvrtc-13/libnvrtc.so.13"
# shellcheck disable=SC2046
if traced two $(trace_python_env) -- "$trace_python" "$here/../trace/load-later.py" --wait 1 \
	"$nvrtc12" "$nvrtc13"; then
	v12=$(sed -n "s|^# fact version $nvrtc12 ||p" "$lttng_tmp/two.out")
	v13=$(sed -n "s|^# fact version $nvrtc13 ||p" "$lttng_tmp/two.out")
	is "two: both copies listed with the versions they report" \
		"$(envjson two "[(l['path'], l['version']) for l in p['libraries'] if 'nvrtc' in l['path']]")" \
		"[('$nvrtc12', '$v12'), ('$nvrtc13', '$v13')]"
	what=$(envjson two 'f.get("duplicate-library", [""])[0]')
	ok "two: a duplicate-library finding names both ($v12, $v13)" \
		contains "$what" "two copies of libnvrtc" "$v12 ($nvrtc12)" "$v13 ($nvrtc13)"
fi
tap_done
