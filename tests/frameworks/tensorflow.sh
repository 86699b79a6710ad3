#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tensorflow.sh - TensorFlow 2.21 (PyPI's tensorflow[and-cuda], built for
# CUDA 12: tools/framework-venv --tensorflow) on the simulator's CUDA 12
# stack, traced: `cudatrace record -- cudasim-env --cuda12 python
# tensorflow-workload.py`, under a CUDA 12.9 driver (record, too, asks the
# driver, and so picks the tracer built against CUPTI 12, and says so).
# Twice: with TF_FORCE_GPU_ALLOW_GROWTH=false and =true.
#
# Each run: TensorFlow lists the simulated GPU, places a tensor on it and
# reads it back unchanged, copies it on the GPU, runs an elementwise op
# there, and refuses a tensor larger than the device with
# ResourceExhaustedError; the workload's facts say how far it got, and
# the last is said in a diagnostic. The CUDA libraries are the
# simulator's (its CUDA 12 libcudart.so.12, libcupti.so.12 and
# libcudnn.so.9 among them, and no libcudart.so.13),
# and the trace holds the ledger's operations. TensorFlow's BFC allocator
# as the driver sees it: without growth, its pool is one allocation of
# most of the device before the first tensor; with growth, it takes
# memory in small steps as tensors need it.
#
# TensorFlow 2.21's libtensorflow_framework.so.2, which opens the CUDA
# libraries, names every NVIDIA wheel's lib directory in its RUNPATH but
# cuSOLVER's: without that directory on the library path it finds no
# libcusolver.so.11 and lists no GPU ("Cannot dlopen some GPU
# libraries"), on any machine. The test puts it there, as TensorFlow's
# users must (and, in a sanitizer build, the others too: see below).
#
# Then a program that dies of its uncaught ResourceExhaustedError (--die):
# the first page tells it as TensorFlow's out-of-memory error, larger than
# the device; how it ended names the exception; the Python probe's peak of
# TensorFlow's allocator is TensorFlow's own get_memory_info().
#
# Then one that runs out of memory with room in its pool, in pieces
# (tensorflow-fragment.py): the first page says the pool was fragmented,
# with the figures of TensorFlow's own summary, and names the other
# process on the device (the simulator's CUDASIM_OTHER_PROCESSES).

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
venv=$("$trace_srcdir/tools/framework-venv" --tensorflow 2>"$lttng_tmp/venv.err") ||
	tap_fail_all "the virtual environment with TensorFlow installs: $(tail -n 3 "$lttng_tmp/venv.err" | tr '\n' ' ')"
cli_with_daemon
: "${CUDASIM_ENV:=$trace_builddir/tests/cudasim/cudasim-env}"
[ -e "$trace_simdir/cuda12/libcudart.so.12" ] ||
	tap_fail_all "the simulator's CUDA 12 flavour is not built ($trace_simdir/cuda12)"
cli_framework_python "$venv/bin/python"
cusolver=$(echo "$venv"/lib/python3*/site-packages/nvidia/cusolver/lib)
[ -d "$cusolver" ] || tap_fail_all "the venv has no nvidia-cusolver-cu12 ($cusolver)"
libpath=$cusolver
# In a sanitizer build, ASan's interceptor of dlopen(3) is the caller the
# dynamic linker sees, so the RUNPATH of the TensorFlow library that opens
# the CUDA libraries is not searched: there every NVIDIA wheel's lib
# directory goes on the library path.
if [ -n "$(trace_asan_runtime)" ]; then
	for dir in "$venv"/lib/python3*/site-packages/nvidia/*/lib; do
		libpath="$libpath:$dir"
	done
fi
lib12="$(dirname "$trace_lib")/libcudatrace-cuda12.so"
CUDASIM_DRIVER_VERSION=12090
export CUDASIM_DRIVER_VERSION

for growth in false true; do
	tag=tf-growth-$growth
	LD_LIBRARY_PATH="$libpath:$LD_LIBRARY_PATH" CLI_TIMEOUT=300 cli_record "$tag" \
		-o "$lttng_tmp/$tag" -- "$CUDASIM_ENV" --libdir "$trace_simdir" --cuda12 \
		TF_FORCE_GPU_ALLOW_GROWTH=$growth "$python" "$cli_here/tensorflow-workload.py"
	cli_status_is "$tag: record exits with the program's status" 0
	ok "$tag: record traces with CUPTI 12 ($(basename "$lib12"))" \
		cli_has "$tag" "tracing with CUPTI 12 \\($(readlink -f "$lib12")\\)"
	fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/$tag.out" | head -n 1; }
	diag "$tag: TensorFlow $(fact version) got as far as: $(grep '^# fact ' \
		"$lttng_tmp/$tag.out" | tail -n 1 | sed 's/^# fact //')"
	is "$tag: TensorFlow lists the simulated GPU" "$(fact gpus)" 1
	is "$tag: a tensor made under tf.device('/GPU:0') is on it" "$(fact placed)" device:GPU:0
	is "$tag: the tensor read back is unchanged" "$(fact roundtrip)" ok
	is "$tag: tf.identity copies it on the GPU" "$(fact copy)" ok
	is "$tag: an elementwise op runs on the GPU" "$(fact elementwise)" ok
	is "$tag: a tensor larger than the device raises ResourceExhaustedError" "$(fact oom)" caught
	cli_trace_checked "$tag" "$tag: the trace reads back and holds the ledger's operations"

	# The simulator's libraries, and no others, served the CUDA calls.
	grep '^event=cudatrace:library_load ' "$lttng_tmp/$tag.events" |
		sed -n 's/.* path=\([^ ]*\).*/\1/p' |
		grep -E '/lib(cuda|cudart|cupti|nvidia-ml|cudnn)\.so' | sort -u >"$lttng_tmp/$tag.cuda-libs"
	for lib in cuda12/libcudart.so.12 cuda12/libcupti.so.12 cuda12/libcudnn.so.9 libcuda.so.1; do
		ok "$tag: the simulator's $lib is loaded" \
			grep -qx "$trace_simdir/$lib" "$lttng_tmp/$tag.cuda-libs"
	done
	is "$tag: no CUDA library but the simulator's is loaded" \
		"$(grep -v "^$trace_simdir/" "$lttng_tmp/$tag.cuda-libs" | tr '\n' ' ')" ""
	is "$tag: one runtime, CUDA 12's: no libcudart.so.13 is loaded" \
		"$(grep -c 'libcudart\.so\.13' "$lttng_tmp/$tag.cuda-libs" | tr -d ' ')" 0

	# The BFC allocator's device allocations, as the driver made them.
	awk '/ op=alloc kind=device / { sub(/.* size=/, ""); sub(/ .*/, ""); print }' \
		"$lttng_tmp/$tag.ledger" >"$lttng_tmp/$tag.sizes"
	largest=$(sort -n "$lttng_tmp/$tag.sizes" | tail -n 1)
	diag "$tag: device allocations (bytes): $(tr '\n' ' ' <"$lttng_tmp/$tag.sizes")"
	if [ "$growth" = false ]; then
		is "$tag: the pool is the first device allocation, and the largest" \
			"$(head -n 1 "$lttng_tmp/$tag.sizes")" "${largest:-none}"
		ok "$tag: ... of most of the device (over 1 GiB of its 4 GiB: ${largest:-none})" \
			test "${largest:-0}" -gt 1073741824
	else
		is "$tag: no device allocation over 64 MiB (largest: ${largest:-none})" \
			"$(awk '$1 > 67108864' "$lttng_tmp/$tag.sizes" | wc -l | tr -d ' ')" 0
		ok "$tag: ... and more than one: the pool grows" \
			test "$(wc -l <"$lttng_tmp/$tag.sizes" | tr -d ' ')" -gt 1
	fi
done

# died_of TAG FACTS ENVIRONMENT... SCRIPT...: record `python SCRIPT...`
# with ENVIRONMENT on the simulated CUDA 12 stack; it must exit with
# status 1. Its JSON report goes to TAG.json, and TAG.facts gets a line
# with the first finding's kind and verdict, then what the Python lines
# FACTS print of the report (r) and that finding (f).
died_of() {
	tag=$1 facts=$2
	shift 2
	LD_LIBRARY_PATH="$libpath:$LD_LIBRARY_PATH" CLI_TIMEOUT=300 cli_record "$tag" \
		-o "$lttng_tmp/$tag" -- "$CUDASIM_ENV" --libdir "$trace_simdir" --cuda12 "$@"
	cli_status_is "$tag: record exits with the program's status" 1
	"$cli_bin" report --format json -o "$lttng_tmp/$tag.json" "$lttng_tmp/$tag" \
		2>"$lttng_tmp/$tag.report-err"
	is "$tag: cudatrace report reads the trace" "$?" 0
	"$trace_python" -c "import json, sys
r = json.load(open(sys.argv[1]))
f = r['findings'][0] if r['findings'] else {}
print(f.get('kind'), f.get('verdict'))
$facts" "$lttng_tmp/$tag.json" >"$lttng_tmp/$tag.facts"
}

# A program that dies of its uncaught ResourceExhaustedError: the first
# page tells it as TensorFlow's, larger than the device, and the probe's
# figures of TensorFlow's allocator are its own get_memory_info().
died_of tf-dies 'print(r["process_end"]["exception"])
d = [d for d in r["framework"]["devices"] if d["framework"] == "tensorflow"]
print(d[0]["peak_in_use_bytes"] if d else "none")' \
	TF_FORCE_GPU_ALLOW_GROWTH=true "$python" "$cli_here/tensorflow-workload.py" --die
is "$tag: the first finding is TensorFlow's out-of-memory error, larger than the device" \
	"$(sed -n 1p "$lttng_tmp/$tag.facts")" "framework_oom too_large"
is "$tag: how it ended names the exception" "$(sed -n 2p "$lttng_tmp/$tag.facts")" \
	"tensorflow.python.framework.errors_impl.ResourceExhaustedError"
is "$tag: the probe's peak of TensorFlow's allocator is its get_memory_info()" \
	"$(sed -n 3p "$lttng_tmp/$tag.facts")" "$(fact peak_bytes)"

# Out of memory with room in the pool, in pieces (tensorflow-fragment.py):
# the first page says so, with the figures of TensorFlow's own summary,
# which 2.21 prints as sizes ("Limit: 64.00MiB").
# The other holder's pid is one no process can have (Linux keeps every pid
# below PID_MAX_LIMIT, 4194304): a live one would be listed with its name
died_of tf-fragment 'o = r["last_words"]["out_of_memory"] or {}
print(o.get("requested_bytes"), o.get("limit_bytes"))
print(o.get("in_use_bytes"))
print(f.get("summary"))
print(f.get("explanation"))' \
	TF_FORCE_GPU_ALLOW_GROWTH=false CUDASIM_OTHER_PROCESSES=0:4194304:1073741824 \
	"$python" "$cli_here/tensorflow-fragment.py"
is "$tag: the first finding is TensorFlow's out-of-memory error, its pool fragmented" \
	"$(sed -n 1p "$lttng_tmp/$tag.facts")" "framework_oom fragmented"
is "$tag: what it asked, and its pool's limit, as the program set them" \
	"$(sed -n 2p "$lttng_tmp/$tag.facts")" "$(fact requested_bytes) $(fact limit_bytes)"
# TensorFlow prints what is in use rounded to hundredths of a MiB
ok "$tag: what was in use is get_memory_info()'s, to its printed precision" \
	"$trace_python" -c 'import sys; a, b = map(int, sys.argv[1:]); sys.exit(abs(a - b) > 10486)' \
	"$(sed -n 3p "$lttng_tmp/$tag.facts")" "$(fact in_use_bytes)"
ok "$tag: the first page quotes the pool's figures" \
	grep -q "in use by TensorFlow, of its 64.00 MiB limit" "$lttng_tmp/$tag.facts"
if grep -q "NVML listed on the device pid 4194304 with 1.00 GiB" "$lttng_tmp/$tag.facts"; then
	ok "$tag: and who else held the device, as NVML listed it at the exception" true
else
	ok "$tag: and who else held the device, as NVML listed it at the exception" false
	# what the first page said, and the events it was made from
	sed 's/^/#   /' "$lttng_tmp/$tag.facts"
	babeltrace2 "$lttng_tmp/$tag" 2>&1 |
		grep -E 'nvml_process|python_exception|framework_oom|discarded|lost' |
		cut -c1-300 | head -n 20 | sed 's/^/#   /'
fi
tap_done
