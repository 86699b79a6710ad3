#!/bin/sh
# SPDX-License-Identifier: MIT
#
# jax.sh - JAX (PyPI's jax[cuda13], tools/framework-venv) on the simulated
# GPU, traced: `cudatrace record -- cudasim-env --device-files
# JAX_PLATFORMS=cuda python jax-workload.py`, which puts an array on the
# device and gets it back, and applies a jitted elementwise function to it.
# JAX finds the CUDA backend (--device-files gives it the device files it
# looks for), the copies move real bytes, only the simulator's CUDA
# libraries are loaded, the trace holds the ledger's operations, and the
# jitted function's module and launch are in it. An array larger than the
# device raises RESOURCE_EXHAUSTED. JAX preallocates 75 % of the device
# (its memory_stats()' bytes_limit) as its pool, and the report's peak of
# device memory is that pool (peak_pool_bytes); with
# XLA_PYTHON_CLIENT_PREALLOCATE=false the pool grows as needed, and the
# report's peak is still JAX's peak_pool_bytes.
# The probe names the Python lines of the arrays live at exit, from JAX's
# device memory profile, summing to what they hold. Without preallocation,
# the program then dies of an uncaught RESOURCE_EXHAUSTED (--die): the
# first page tells it as JAX's error, with the lines of its arrays.
# On the CPU, the host's arrays are no GPU's, and the first page says
# that JAX used no GPU.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
venv=$("$trace_srcdir/tools/framework-venv" 2>"$lttng_tmp/venv.err") ||
	tap_fail_all "the virtual environment with PyTorch and JAX installs: $(tail -n 3 "$lttng_tmp/venv.err" | tr '\n' ' ')"
unshare --mount true 2>/dev/null ||
	tap_skip_all "no unshare: cannot create the mount namespace of cudasim-env --device-files"
cli_with_daemon
: "${CUDASIM_ENV:=$trace_builddir/tests/cudasim/cudasim-env}"
cli_framework_python "$venv/bin/python"

CLI_TIMEOUT=180 cli_record jax -o "$lttng_tmp/jax" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" --device-files JAX_PLATFORMS=cuda \
	"$python" "$cli_here/jax-workload.py"
cli_status_is "record exits with the program's status" 0
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/jax.out" | head -n 1; }
is "JAX runs on its CUDA backend" "$(fact platform)" gpu
is "... with the simulated device" "$(fact devices)" 1
is "an array put on the device and got back is unchanged" "$(fact roundtrip)" ok
is "the jitted function gives an array of its shape on the device" "$(fact jit)" ok
cli_trace_checked jax "the trace reads back and holds the ledger's operations"

grep '^event=cudatrace:library_load ' "$lttng_tmp/jax.events" |
	sed -n 's/.* path=\([^ ]*\).*/\1/p' | grep -E '/lib(cuda|cudart|cupti|nvidia-ml|cudnn)\.so' |
	sort -u >"$lttng_tmp/jax.cuda-libs"
ok "the simulator's libcuda.so.1 is loaded" grep -qx "$trace_simdir/libcuda.so.1" \
	"$lttng_tmp/jax.cuda-libs"
is "no CUDA library but the simulator's is loaded" \
	"$(grep -v "^$trace_simdir/" "$lttng_tmp/jax.cuda-libs" | tr '\n' ' ')" ""
ok "the jitted function's module is loaded" \
	grep -q '^event=cudatrace:module_load ' "$lttng_tmp/jax.events"
ok "... and its kernel launched" grep -q '^event=cudatrace:launch ' "$lttng_tmp/jax.events"
is "the copies both ways are in the trace" \
	"$(sed -n 's/^event=cudatrace:memcpy .* direction=\([A-Za-z]*\).*/\1/p' "$lttng_tmp/jax.events" |
		grep -x 'HtoD\|DtoH' | sort -u | tr '\n' ' ')" "DtoH HtoD "
is "an array larger than the device raises RESOURCE_EXHAUSTED" "$(fact oom)" caught

# The report's peak against JAX's own figures (jq-less: Python reads the JSON).
report() { # TAG WHAT
	"$cli_bin" report --format json -o "$lttng_tmp/$1.json" "$lttng_tmp/$1" 2>"$lttng_tmp/$1.report-err"
	"$trace_python" -c 'import json, sys
report = json.load(open(sys.argv[1]))
if sys.argv[2] == "peak":
    print(" ".join(str(d["peak_bytes"]) for d in report["memory"]["devices"]))
else:
    print(" ".join(str(d["memory_bytes"]) for d in report["trace"]["devices"]))' \
		"$lttng_tmp/$1.json" "$2"
}
is "preallocation: the report's peak is JAX's peak_pool_bytes" "$(report jax peak)" \
	"$(fact peak_pool_bytes)"
device_bytes=$(report jax device)
is "preallocation: JAX's pool is 75 % of the device's memory" \
	"$(fact bytes_limit)" "$((device_bytes / 4 * 3))"
# The Python probe's view (doc/events.md): JAX's own figures, and the
# preallocation told as such on the first page.
framework() { # TAG WHAT
	"$trace_python" -c 'import json, sys
report = json.load(open(sys.argv[1]))
fw, what = report["framework"], sys.argv[2]
d = fw["devices"][0]
if what == "loaded":
    print(" ".join("%s:%s" % (l["framework"], l["version"]) for l in fw["loaded"]))
elif what == "figures":
    print(d["framework"], d["peak_reserved_bytes"], d["limit_bytes"], d["peak_in_use_bytes"])
elif what == "preallocation":
    print(" ".join("%.2f" % f["numbers"]["first_reserved_share"] for f in report["findings"]
                   if f["kind"] == "preallocation"))' "$lttng_tmp/$1.json" "$2"
}
is "the probe: the report names the JAX imported" "$(framework jax loaded)" "jax:$(fact version)"
is "the probe: JAX's pool, limit and peak in use are its memory_stats()" \
	"$(framework jax figures)" \
	"jax $(fact peak_pool_bytes) $(fact bytes_limit) $(fact peak_bytes_in_use)"
is "the probe: the first page says JAX took 75 % of the device at its start" \
	"$(framework jax preallocation)" "0.75"
line_of() { grep -n "# $1\$" "$cli_here/jax-workload.py" | cut -d: -f1; }
is "the probe: at exit, the lines of the arrays kept, as much as they hold" \
	"$("$trace_python" -c 'import json, sys
d = json.load(open(sys.argv[1]))["framework"]["devices"][0]
sites = [s for s in d["tensor_sites"] if s["at"] == "exit"]
print(sum(s["bytes"] for s in sites), " ".join(sorted("%s:%d:%d" % (s["file"].rsplit("/", 1)[-1], s["line"], s["count"]) for s in sites)))' \
		"$lttng_tmp/jax.json")" \
	"$(fact held_bytes) jax-workload.py:$(line_of PUT):1 jax-workload.py:$(line_of JIT):1"

CLI_TIMEOUT=180 cli_record lazy -o "$lttng_tmp/lazy" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" --device-files JAX_PLATFORMS=cuda \
	XLA_PYTHON_CLIENT_PREALLOCATE=false "$python" "$cli_here/jax-workload.py" --die
cli_status_is "no preallocation: record exits with the program's status" 1
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/lazy.out" | head -n 1; }
is "no preallocation: the jitted function runs" "$(fact jit)" ok
is "no preallocation: RESOURCE_EXHAUSTED is raised" "$(fact oom)" caught
cli_trace_checked lazy "no preallocation: the trace reads back and holds the ledger's operations"
is "no preallocation: the report's peak is JAX's peak_pool_bytes" "$(report lazy peak)" \
	"$(fact peak_pool_bytes)"
ok "no preallocation: the pool is smaller than the preallocated one" \
	test "$(fact peak_pool_bytes)" -lt "$(fact bytes_limit)"
is "no preallocation: the probe: JAX's figures are its memory_stats()" \
	"$(framework lazy figures)" \
	"jax $(fact peak_pool_bytes) $(fact bytes_limit) $(fact peak_bytes_in_use)"
is "no preallocation: no preallocation on the first page" "$(framework lazy preallocation)" ""
# It died of an uncaught RESOURCE_EXHAUSTED: XLA's allocator message (in
# TensorFlow's words) is JAX's, larger than its pool, and names the lines
# of the arrays it held then.
"$trace_python" -c 'import json, sys
f = [f for f in json.load(open(sys.argv[1]))["findings"] if f["kind"] == "framework_oom"]
print(f[0]["summary"] if f else "none")
print(f[0]["explanation"] if f else "none")' "$lttng_tmp/lazy.json" >"$lttng_tmp/lazy.oom"
ok "no preallocation: the death by RESOURCE_EXHAUSTED is JAX's, larger than it may use" \
	grep -q "^JAX could not allocate 1.00 TiB: more than it may use of the device" "$lttng_tmp/lazy.oom"
ok "no preallocation: ... and names the lines of the arrays it held" \
	grep -q "its arrays were allocated at jax-workload.py:$(line_of JIT) in main (4.00 MiB, 1 array), jax-workload.py:$(line_of PUT) in main (4.00 MiB, 1 array)\|its arrays were allocated at jax-workload.py:$(line_of PUT) in main (4.00 MiB, 1 array), jax-workload.py:$(line_of JIT) in main (4.00 MiB, 1 array)" \
	"$lttng_tmp/lazy.oom"

# On the CPU (JAX_PLATFORMS=cpu), JAX's device memory profile holds the
# host's arrays, as device cpu:0: no line is told as holding a GPU's memory.
cat >"$lttng_tmp/on-cpu.py" <<'PY'
import jax.numpy as jnp

kept = jnp.ones((1024, 1024))
print("# fact platform", kept.devices().pop().platform, flush=True)
PY
CLI_TIMEOUT=120 cli_record on-cpu -o "$lttng_tmp/on-cpu" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" JAX_PLATFORMS=cpu "$python" "$lttng_tmp/on-cpu.py"
cli_status_is "on the CPU: record exits with the program's status" 0
is "on the CPU: JAX runs there" "$(sed -n 's/^# fact platform //p' "$lttng_tmp/on-cpu.out")" cpu
"$cli_bin" report --format json -o "$lttng_tmp/on-cpu.json" "$lttng_tmp/on-cpu" \
	2>"$lttng_tmp/report.err"
is "on the CPU: no line holds a GPU's memory" "$("$trace_python" -c 'import json, sys
d = json.load(open(sys.argv[1]))["framework"]["devices"]
print(sum(len(x["tensor_sites"]) for x in d))' "$lttng_tmp/on-cpu.json")" 0
is "on the CPU: the first page says JAX used no GPU, and never started CUDA" \
	"$("$trace_python" -c 'import json, sys
f = json.load(open(sys.argv[1]))["findings"][0]
print(f["kind"], f["verdict"], f["summary"].startswith("JAX %s was imported" % sys.argv[2]))' \
		"$lttng_tmp/on-cpu.json" "$(fact version)")" "gpu_unused cuda_never_started True"
tap_done
