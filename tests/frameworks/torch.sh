#!/bin/sh
# SPDX-License-Identifier: MIT
#
# torch.sh - PyTorch (PyPI's CUDA 13 build, tools/framework-venv) on the
# simulated GPU, traced: `cudatrace record -- cudasim-env python
# torch-workload.py`, which allocates a tensor on the device, launches an
# elementwise kernel, copies both ways, empties the caching allocator's
# cache and raises torch.OutOfMemoryError. The program runs as PyTorch
# documents, on the simulator's libraries only (not its wheels' CUDA
# libraries, which its RPATH names), the trace holds the ledger's
# operations, the report's peak of device memory is PyTorch's own
# torch.cuda.max_memory_reserved(), and the report names the failed
# allocation as out of memory. The simulator's lists of cuDNN's and
# cuBLAS's symbols are those of the wheel's libcudnn.so.9, libcublas.so.13
# and libcublasLt.so.13.
#
# The Python probe (doc/events.md) records PyTorch's own figures: the
# report's framework section holds torch.cuda.max_memory_allocated() and
# max_memory_reserved(), its version, and its out-of-memory error with
# what memory_allocated() and memory_reserved() said once it was caught;
# the first page tells that error once, as PyTorch's, with the driver's
# refusals that were part of it.
#
# Then the same with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True:
# the caching allocator maps physical memory (cuMemCreate, cuMemMap) into
# segments that grow; the trace holds the ledger's operations, the
# allocations are VMM ones, the report's peak is again
# torch.cuda.max_memory_reserved(), and the out-of-memory error, which
# PyTorch raises there without a CUDA call failing, is no failed
# allocation in the report.
#
# Then a program that dies of an uncaught torch.OutOfMemoryError
# (torch-oom.py): the report reads PyTorch's message from its standard
# error, and its figures are PyTorch's own (torch.cuda.memory_allocated(),
# memory_reserved(), the device's total memory, within the rounding of its
# message); how it ended names the exception and the line it was raised at,
# as, for the death the probe records (torch-workload.py --die), its
# stderr read back does the probe's.
#
# Then, with `record --tensor-sites`, a program whose tensors come from
# known lines (torch-sites.py): the framework section gives the lines that
# held PyTorch's memory at its out-of-memory error, at exit and at its
# peak, each summing to what PyTorch itself said then
# (memory_allocated(), max_memory_allocated()), and the out-of-memory
# finding names them.
#
# Then a training loop that keeps a tensor of every step until the device
# is full (torch-growth.py), its GPU records handed over only at exit (a
# flush period longer than the run), after tens of thousands of other
# calls, some from PyTorch's backward thread: every kernel is joined to its
# launch, as many as the ledger has; the out-of-memory error names the
# line that kept the memory, and what to do begins with it.
#
# Then a loop that keeps each step's gradient (torch-backward.py), which
# PyTorch allocates on its autograd engine's thread, where no Python runs:
# the growth is charged to the line that called backward(), with the
# ledger's allocations off the main thread.
#
# Then a device full of a tensor made at start-up and kept
# (torch-held.py): PyTorch's out-of-memory error names the line whose
# driver allocation holds its pool, as much as memory_reserved() says.
#
# Then a script that frees its tensors without emptying the cache
# (torch-pool.py) ends with the pool still allocated, as PyTorch means
# it: the driver's leftovers are torch.cuda.memory_reserved(), and no
# finding calls them memory the program never freed.
#
# Then a small training loop of nn.Linear layers (torch-linear.py), whose
# matrix products are the simulated cuBLAS's: it runs, PyTorch's results
# have the shapes it says, the report counts as many launches of each
# cuBLAS kernel as the ledger, and each launch is the library's own (a
# driver launch whose call stack goes through libcublasLt.so.13 for the
# forward pass, libcublas.so.13 for the backward pass and torch.mm).
#
# Then a DataLoader with pin_memory=True (torch-uploads.py), whose
# batches go up from the same pinned block step after step, beside two
# tensors that never change, uploaded every step: the report's repeated
# uploads are those two tensors' lines, and not the batches'.
#
# Then a program that may use a quarter of the device
# (set_per_process_memory_fraction, torch-share.py) runs out of that share
# with most of the device free: the first page says the share refused it.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
venv=$("$trace_srcdir/tools/framework-venv" 2>"$lttng_tmp/venv.err") ||
	tap_fail_all "the virtual environment with PyTorch and JAX installs: $(tail -n 3 "$lttng_tmp/venv.err" | tr '\n' ' ')"
cli_with_daemon
: "${CUDASIM_ENV:=$trace_builddir/tests/cudasim/cudasim-env}"
cli_framework_python "$venv/bin/python"

CLI_TIMEOUT=180 cli_record torch -o "$lttng_tmp/torch" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-workload.py"
cli_status_is "record exits with the program's status" 0
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/torch.out" | head -n 1; }
is "PyTorch sees the simulated device" "$(fact device)" "cudasim_GPU_(simulated)"
is "the elementwise kernel gives a tensor on the device" "$(fact kernel)" ok
is "a tensor copied to the device and back is unchanged" "$(fact roundtrip)" ok
is "torch.cuda.empty_cache() gives every block back" "$(fact empty_cache_reserved)" 0
is "an allocation larger than the device raises torch.OutOfMemoryError" "$(fact oom)" caught
cli_trace_checked torch "the trace reads back and holds the ledger's operations"

# The simulator's libraries, and no others, served the CUDA calls.
grep '^event=cudatrace:library_load ' "$lttng_tmp/torch.events" |
	sed -n 's/.* path=\([^ ]*\).*/\1/p' |
	grep -E '/lib(cuda|cudart|cupti|nvidia-ml|cudnn|cublas|cublasLt)\.so' |
	sort -u >"$lttng_tmp/torch.cuda-libs"
for lib in libcudart.so.13 libcupti.so.13 libcudnn.so.9 libcublas.so.13 libcublasLt.so.13; do
	ok "the simulator's $lib is loaded" grep -qx "$trace_simdir/$lib" "$lttng_tmp/torch.cuda-libs"
done
is "no CUDA library but the simulator's is loaded" \
	"$(grep -v "^$trace_simdir/" "$lttng_tmp/torch.cuda-libs" | tr '\n' ' ')" ""

# The simulator's cuDNN exports what the wheel's does (libcudnn.exports).
wheel_cudnn=$(echo "$venv"/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9)
nm -D --defined-only "$wheel_cudnn" 2>/dev/null |
	awk 'NF == 3 && $2 ~ /^[TtWwViAB]$/ {print $3}' | sed 's/@@/@/' | sort -u \
	>"$lttng_tmp/cudnn.wheel"
grep -v '^#' "$trace_srcdir/tests/cudasim/libcudnn.exports" | sort -u >"$lttng_tmp/cudnn.list"
ok "cudasim/libcudnn.exports lists the symbols of the wheel's libcudnn.so.9" \
	cmp -s "$lttng_tmp/cudnn.wheel" "$lttng_tmp/cudnn.list"
# And its cuBLAS what the wheel's does (libcublas.exports, libcublasLt.exports).
for lib in libcublas libcublasLt; do
	nm -D --defined-only "$(echo "$venv"/lib/python3*/site-packages/nvidia/cu13/lib/$lib.so.13)" \
		2>/dev/null | awk 'NF == 3 && $2 ~ /^[TtWwViAB]$/ {print $3}' | sed 's/@@/@/' |
		sort -u >"$lttng_tmp/$lib.wheel"
	grep -v '^#' "$trace_srcdir/tests/cudasim/$lib.exports" | sort -u >"$lttng_tmp/$lib.list"
	ok "cudasim/$lib.exports lists the symbols of the wheel's $lib.so.13" \
		cmp -s "$lttng_tmp/$lib.wheel" "$lttng_tmp/$lib.list"
done

"$cli_bin" report --format json -o "$lttng_tmp/torch.json" "$lttng_tmp/torch" \
	2>"$lttng_tmp/report.err"
is "cudatrace report --format json reads the trace" "$?" 0
report() {
	"$trace_python" -c 'import json, sys
memory = json.load(open(sys.argv[1]))["memory"]
what = sys.argv[2]
if what == "peak":
    print(" ".join(str(d["peak_bytes"]) for d in memory["devices"]))
elif what == "failures":
    print(" ".join("%d:%s" % (f["requested_bytes"], f["verdict"]) for f in memory["failures"]))' \
		"$lttng_tmp/torch.json" "$1"
}
is "the report's peak of device memory is torch.cuda.max_memory_reserved()" \
	"$(report peak)" "$(fact max_reserved)"
is "the report names the failed allocation as out of memory" \
	"$(report failures | tr ' ' '\n' | sort -u | tr '\n' ' ')" "1099511627776:out_of_memory "
# What the framework section and the findings say: WHAT of the report.
framework() {
	"$trace_python" -c 'import json, sys
report = json.load(open(sys.argv[1]))
fw, what = report["framework"], sys.argv[2]
d = fw["devices"][0] if fw["devices"] else {}
oom = d["oom_errors"][0] if d.get("oom_errors") else {}
if what == "loaded":
    print(" ".join("%s:%s" % (l["framework"], l["version"]) for l in fw["loaded"]))
elif what == "peaks":
    print(d["framework"], d["peak_in_use_bytes"], d["peak_reserved_bytes"])
elif what == "oom":
    print(oom["requested_bytes"], oom["in_use_bytes"], oom["reserved_bytes"])
elif what == "findings":
    print(" ".join("%s:%s" % (f["kind"], f["verdict"]) for f in report["findings"]
                   if f["kind"] in ("framework_oom", "allocation_failure")))
elif what == "timeline":
    print(max(t["max_in_use_bytes"] for t in fw["timeline"]),
          max(t["max_reserved_bytes"] for t in fw["timeline"]))
elif what == "lead":
    f = report["findings"][0]
    print(f["kind"], f["death"], f["where"]["site"])
elif what == "then":
    print(report["findings"][0]["summary"].split("; then ")[-1])
elif what == "launch_sites":
    print(" ".join(sorted({k["launch_site"] for k in report["kernels"]})))
elif what == "copy_sites":
    print(" ".join(sorted({h["site"] for h in report["transfers"]["hotspots"]})))
elif what == "exception":
    for x in fw["exceptions"]:
        print(x["type"], x["file"].rsplit("/", 1)[-1], x["line"])' "$lttng_tmp/torch.json" "$1"
}
is "the probe: the report names the PyTorch imported" "$(framework loaded)" "pytorch:$(fact version)"
is "the probe: PyTorch's peaks are max_memory_allocated() and max_memory_reserved()" \
	"$(framework peaks)" "pytorch $(fact max_allocated) $(fact max_reserved)"
is "the probe: its figures over time reach max_memory_allocated() and max_memory_reserved()" \
	"$(framework timeline)" "$(fact max_allocated) $(fact max_reserved)"
"$cli_bin" report --plot "$lttng_tmp/plots" "$lttng_tmp/torch" >/dev/null 2>"$lttng_tmp/plot.err"
ok "the probe: the device memory plot, which draws them, is drawn" \
	test -s "$(ls "$lttng_tmp"/plots/memory-*-dev0.svg 2>/dev/null | head -n 1)"
is "the probe: its out-of-memory error, with what PyTorch held then" "$(framework oom)" \
	"1099511627776 $(fact allocated_at_oom) $(fact reserved_at_oom)"
is "the probe: the first page tells it once, as PyTorch's error" "$(framework findings)" \
	"framework_oom:too_large"
# line_of PROGRAM MARK: the line of PROGRAM (in this folder) that ends with "# MARK".
line_of() { grep -n "# $2\$" "$cli_here/$1" | cut -d: -f1; }
is "the kernels are named by the Python line that launched them" "$(framework launch_sites)" \
	"torch-workload.py:$(line_of torch-workload.py KERNELS-HERE) in main"
is "the copies, by the Python line that made them" "$(framework copy_sites)" \
	"torch-workload.py:$(line_of torch-workload.py COPIES-HERE) in main"

# Expandable segments.
CLI_TIMEOUT=180 cli_record expandable -o "$lttng_tmp/expandable" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \
	"$python" "$cli_here/torch-workload.py"
cli_status_is "expandable segments: record exits with the program's status" 0
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/expandable.out" | head -n 1; }
is "expandable segments: a tensor copied to the device and back is unchanged" \
	"$(fact roundtrip)" ok
is "expandable segments: torch.cuda.empty_cache() gives every segment back" \
	"$(fact empty_cache_reserved)" 0
is "expandable segments: torch.OutOfMemoryError is raised" "$(fact oom)" caught
cli_trace_checked expandable "expandable segments: the trace reads back and holds the ledger's operations"
ok "expandable segments: the segments are physical memory mapped (cuMemCreate, cuMemMap)" \
	grep -q '^event=cudatrace:mem_alloc .*kind=vmm_physical' "$lttng_tmp/expandable.events"
"$cli_bin" report --format json -o "$lttng_tmp/torch.json" "$lttng_tmp/expandable" \
	2>"$lttng_tmp/report.err"
is "expandable segments: cudatrace report reads the trace" "$?" 0
is "expandable segments: the report's peak is torch.cuda.max_memory_reserved()" \
	"$(report peak)" "$(fact max_reserved)"
is "expandable segments: no CUDA call failed, so no failed allocation is reported" \
	"$(report failures)" ""
is "expandable segments: the probe: PyTorch's peaks are its own" "$(framework peaks)" \
	"pytorch $(fact max_allocated) $(fact max_reserved)"
is "expandable segments: the first page tells PyTorch's error" "$(framework findings)" \
	"framework_oom:too_large"

# Death by an uncaught torch.OutOfMemoryError: the exception, at its line.
CLI_TIMEOUT=180 cli_record die -o "$lttng_tmp/die" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-workload.py" --die
cli_status_is "uncaught: record exits with the program's status" 1
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/die.out" | head -n 1; }
"$cli_bin" report --format json -o "$lttng_tmp/torch.json" "$lttng_tmp/die" \
	2>"$lttng_tmp/report.err"
is "uncaught: the probe records the exception at the program's line" "$(framework exception)" \
	"torch.OutOfMemoryError torch-workload.py $(fact die_line)"
is "uncaught: the first page leads with PyTorch's error, which it died of, at its line" \
	"$(framework lead)" "framework_oom gpu-oom torch-workload.py:$(fact die_line) in main"
is "uncaught: ... and says it then died of the exception, at its line" "$(framework then)" \
	"python died of an uncaught torch.OutOfMemoryError at torch-workload.py:$(fact die_line) in main (exit status 1)"
ok "uncaught: the program's traceback still reaches its stderr" \
	grep -q "^torch.OutOfMemoryError: CUDA out of memory" "$lttng_tmp/die.err"
is "uncaught: its stderr, read back, names the same exception and line as the probe" \
	"$("$trace_python" -c 'import json, sys
e = json.load(open(sys.argv[1]))["last_words"]["exception"]
print(e["type"], e["file"].rsplit("/", 1)[-1], e["line"], e["function"])' "$lttng_tmp/torch.json")" \
	"torch.OutOfMemoryError torch-workload.py $(fact die_line) main"

# An uncaught torch.OutOfMemoryError.
CLI_TIMEOUT=180 cli_record oom -o "$lttng_tmp/oom" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-oom.py"
cli_status_is "uncaught OOM: record exits with the program's status" 1
ok "uncaught OOM: PyTorch's message went through record's stderr" \
	grep -q '^torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1024.00 GiB' "$lttng_tmp/oom.err"
"$cli_bin" report --format json -o "$lttng_tmp/oom.json" "$lttng_tmp/oom" 2>"$lttng_tmp/report.err"
is "uncaught OOM: cudatrace report reads the trace" "$?" 0
oom_line=$(grep -n '# OOM-HERE$' "$cli_here/torch-oom.py" | cut -d: -f1)
is "uncaught OOM: how it ended names the exception and its line" \
	"$("$trace_python" -c 'import json, sys
e = json.load(open(sys.argv[1]))["process_end"]
print(e["exception"], e["exception_site"], e["framework_oom"])' "$lttng_tmp/oom.json")" \
	"torch.OutOfMemoryError torch-oom.py:$oom_line in <module> pytorch"
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/oom.out" | head -n 1; }
# Each figure within half a hundredth of the unit PyTorch printed it in (format_size).
is "uncaught OOM: the report's figures are PyTorch's own" \
	"$("$trace_python" -c 'import json, sys
o = json.load(open(sys.argv[1]))["last_words"]["out_of_memory"]
def near(got, want):
    unit = 1 if want <= 1024 else 1024 if want <= 1 << 20 else 1 << 20 if want <= 1 << 30 else 1 << 30
    return got is not None and abs(got - want) <= unit / 200
print(o["framework"], o["requested_bytes"] == 1 << 40, near(o["in_use_bytes"], int(sys.argv[2])),
      near(o["reserved_bytes"], int(sys.argv[3])), near(o["device_total_bytes"], int(sys.argv[4])))' \
		"$lttng_tmp/oom.json" "$(fact allocated)" "$(fact reserved)" "$(fact total)")" \
	"pytorch True True True True"
# The Python lines of PyTorch's tensors (record --tensor-sites).
CLI_TIMEOUT=180 cli_record sites -o "$lttng_tmp/sites" --tensor-sites -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-sites.py"
cli_status_is "tensor sites: record exits with the program's status" 0
"$cli_bin" report --format json -o "$lttng_tmp/sites.json" "$lttng_tmp/sites" 2>"$lttng_tmp/report.err"
is "tensor sites: cudatrace report reads the trace" "$?" 0
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/sites.out" | head -n 1; }
# at each moment: "site bytes count" by line, and the sum against PyTorch's own figure
"$trace_python" -c 'import json, sys
d = [x for x in json.load(open(sys.argv[1]))["framework"]["devices"] if x["framework"] == "pytorch"][0]
for at in ("oom", "exit", "peak"):
    sites = [s for s in d["tensor_sites"] if s["at"] == at]
    print(at, sum(s["bytes"] for s in sites),
          " ".join("%s:%d:%d:%d" % (s["function"], s["line"], s["bytes"] >> 20, s["count"]) for s in sites))
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["kind"] == "framework_oom":
        print("finding", f["explanation"])' "$lttng_tmp/sites.json" >"$lttng_tmp/sites.txt"
w=$(line_of torch-sites.py WEIGHTS)
k=$(line_of torch-sites.py KEPT)
a=$(line_of torch-sites.py ACTIVATIONS)
is "tensor sites: at the error, the weights' and the kept tensors' lines, as much as PyTorch held" \
	"$(grep '^oom ' "$lttng_tmp/sites.txt")" "oom $(fact oom_allocated) weights:$w:64:1 step:$k:40:5"
is "tensor sites: at exit, the same, as much as memory_allocated()" \
	"$(grep '^exit ' "$lttng_tmp/sites.txt")" "exit $(fact allocated) weights:$w:64:1 step:$k:40:5"
is "tensor sites: at PyTorch's peak, the activations too, as much as max_memory_allocated()" \
	"$(grep '^peak ' "$lttng_tmp/sites.txt")" \
	"peak $(fact max_allocated) weights:$w:64:1 step:$k:40:5 step:$a:32:1"
ok "tensor sites: the out-of-memory finding names the lines" \
	grep -q "^finding .*its tensors were allocated at torch-sites.py:$w in weights (64.00 MiB, 1 tensor), torch-sites.py:$k in step (40.00 MiB, 5 tensors)" "$lttng_tmp/sites.txt"

# A training loop whose kept tensors fill the device.
CUDATRACE_FLUSH_PERIOD_MS=600000 CLI_TIMEOUT=180 cli_record growth -o "$lttng_tmp/growth" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-growth.py"
cli_status_is "growth: record exits with the program's status" 1
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/growth.out" | head -n 1; }
ok "growth: it ran steps until the device was full ($(fact steps))" test "$(fact steps)" -gt 100
"$cli_bin" report --format json -o "$lttng_tmp/growth.json" "$lttng_tmp/growth" \
	2>"$lttng_tmp/report.err"
is "growth: cudatrace report reads the trace" "$?" 0
"$trace_python" -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["trace"]["unmatched_gpu_records"], r["gpu"]["launches_without_kernel"])
print(sum(k["count"] for k in r["kernels"]), sum(k["launches"] for k in r["kernels"]))
f = r["findings"][0]
print(f["kind"])
print(f["explanation"])
print(f["advice"])' "$lttng_tmp/growth.json" >"$lttng_tmp/growth.facts"
is "growth: every GPU record is joined to its call, every launch to its kernel" \
	"$(sed -n 1p "$lttng_tmp/growth.facts")" "0 0"
launches=$(grep -c ' op=launch ' "$lttng_tmp/growth.ledger")
is "growth: the kernels and launches counted are the ledger's launches" \
	"$(sed -n 2p "$lttng_tmp/growth.facts")" "$launches $launches"
is "growth: the first finding is PyTorch's out-of-memory error" \
	"$(sed -n 3p "$lttng_tmp/growth.facts")" framework_oom
kept="torch-growth.py:$(line_of torch-growth.py KEPT) in main"
ok "growth: ... which names the line whose memory grew step after step" \
	grep -q "; memory allocated at $kept grew step after step" "$lttng_tmp/growth.facts"
ok "growth: ... and what to do begins with it" \
	grep -q "^first stop what keeps the memory allocated at $kept from one step to the next" \
	"$lttng_tmp/growth.facts"

# A loop that keeps each step's gradient, made on PyTorch's autograd
# thread: the memory that grows is charged to the line that called
# backward(), as many allocations and bytes as the ledger's on threads
# other than the main one, and the stack keeps the engine's frames.
CLI_TIMEOUT=180 cli_record backward -o "$lttng_tmp/backward" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-backward.py"
cli_status_is "backward: record exits with the program's status" 0
"$cli_bin" report --format json -o "$lttng_tmp/backward.json" "$lttng_tmp/backward" \
	2>"$lttng_tmp/report.err"
is "backward: cudatrace report reads the trace" "$?" 0
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/backward.out" | head -n 1; }
"$trace_python" -c 'import json, sys
r = json.load(open(sys.argv[1]))
f = r["findings"][0]
print(f["kind"], f["where"]["site"])
print(f["numbers"]["growth_per_rise_bytes"], f["numbers"]["allocations"],
      f["numbers"]["held_at_end_bytes"])
site = [s for d in r["memory"]["devices"] for s in d["leak_sites"]
        if s["site"] == f["where"]["site"]]
frames = site[0]["stack"] if site else []
print(any("autograd::Engine::thread_main" in (x.get("function") or "") for x in frames),
      [x["line"] for x in frames if x.get("python") and not x.get("folded")][:1])' \
	"$lttng_tmp/backward.json" >"$lttng_tmp/backward.facts"
b=$(line_of torch-backward.py BACKWARD)
is "backward: the first finding is the growth, at the line that called backward()" \
	"$(sed -n 1p "$lttng_tmp/backward.facts")" "site_growth torch-backward.py:$b in main"
worker=$(awk '{ delete f; for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
	f["op"] == "alloc" && f["api"] == "cudaMalloc" && f["tid"] != f["pid"] {
		n++; bytes += f["size"] } END { print n + 0, bytes + 0 }' "$lttng_tmp/backward.ledger")
is "backward: it grew by a gradient a step, with the ledger's allocations off the main thread" \
	"$(sed -n 2p "$lttng_tmp/backward.facts")" "$(fact grad_bytes) $worker"
is "backward: its stack holds the engine's native frames, then the line of backward()" \
	"$(sed -n 3p "$lttng_tmp/backward.facts")" "True [$b]"

# The same loop, each step an NVTX range of the main thread: the engine's
# allocations are in the range the main thread waits in, which grows, and
# its finding names the line of backward() as what grows in it (not the
# larger block the cache took at the first step).
CLI_TIMEOUT=180 cli_record backward-nvtx -o "$lttng_tmp/backward-nvtx" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-backward.py" nvtx
cli_status_is "backward, in ranges: record exits with the program's status" 0
"$cli_bin" report --format json -o "$lttng_tmp/backward-nvtx.json" "$lttng_tmp/backward-nvtx" \
	2>"$lttng_tmp/report.err"
is "backward, in ranges: cudatrace report reads the trace" "$?" 0
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/backward-nvtx.out" | head -n 1; }
is "backward, in ranges: the first finding is range step's growth, a gradient a step, kept at the line of backward()" \
	"$("$trace_python" -c 'import json, sys
f = json.load(open(sys.argv[1]))["findings"][0]
print(f["kind"], f["where"]["nvtx_path"], f["numbers"]["growth_per_repetition_bytes"],
      f["numbers"]["repetitions"], f["explanation"])' "$lttng_tmp/backward-nvtx.json")" \
	"memory_growth step $(fact grad_bytes) $(fact steps) what it keeps was allocated at step:torch-backward.py:$b in main and never freed"

# A device full of one tensor kept from start-up: the error names its line.
CLI_TIMEOUT=180 cli_record held -o "$lttng_tmp/held" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-held.py"
cli_status_is "held: record exits with the program's status" 1
"$cli_bin" report --format json -o "$lttng_tmp/held.json" "$lttng_tmp/held" 2>"$lttng_tmp/report.err"
is "held: cudatrace report reads the trace" "$?" 0
held_line=$(grep -n '# HELD$' "$cli_here/torch-held.py" | cut -d: -f1)
is "held: the out-of-memory error names the line of the driver allocation that holds the pool" \
	"$("$trace_python" -c 'import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"][0]
h = d["memory"]["failures"][-1]["holder"]
print(f["kind"], f["verdict"], h["site"], h["bytes"], h["count"],
      "came from 1 driver allocation made at " + h["site"] in f["explanation"],
      f["advice"].startswith("first see whether the 3.00 GiB allocated at " + h["site"]))' \
		"$lttng_tmp/held.json")" \
	"framework_oom out_of_memory torch-held.py:$held_line in <module> $(sed -n 's/^# fact reserved //p' "$lttng_tmp/held.out") 1 True True"

# Every tensor freed, the cache not emptied: what PyTorch's caching allocator
# reserved is still allocated at the end, by design, and no finding calls
# it memory the program never freed.
CLI_TIMEOUT=180 cli_record pool -o "$lttng_tmp/pool" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-pool.py"
cli_status_is "pool: record exits with the program's status" 0
"$cli_bin" report --format json -o "$lttng_tmp/pool.json" "$lttng_tmp/pool" 2>"$lttng_tmp/report.err"
is "pool: cudatrace report reads the trace" "$?" 0
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/pool.out" | head -n 1; }
# (its pinned host cache keeps the buffer .item() copied through, too)
is "pool: PyTorch holds no tensor, and its pool is the device memory still allocated at the end" \
	"$(fact allocated) $("$trace_python" -c 'import json, sys
print(sum(a["size"] for d in json.load(open(sys.argv[1]))["memory"]["devices"]
          for a in d["leaks"] if a["kind"] == "device"))' "$lttng_tmp/pool.json")" \
	"0 $(fact reserved)"
is "pool: no finding calls the pool memory never freed" \
	"$("$trace_python" -c 'import json, sys
print([f["summary"] for f in json.load(open(sys.argv[1]))["findings"] if f["kind"] == "leak"])' \
		"$lttng_tmp/pool.json")" "[]"

# nn.Linear on the simulated cuBLAS, every call's stack taken
# (CUDATRACE_STACK_CALLS=1: the autograd thread runs no Python).
CUDATRACE_STACK_CALLS=1 CLI_TIMEOUT=120 cli_record linear -o "$lttng_tmp/linear" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-linear.py"
cli_status_is "linear: record exits with the program's status" 0
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/linear.out" | head -n 1; }
is "linear: the forward pass, backward pass and torch.mm give what PyTorch says" \
	"$(fact out) $(fact grad) $(fact mm) $(fact steps)" "(32, 10) (128, 64) (32, 32) 5"
cli_trace_checked linear "linear: the trace reads back and holds the ledger's operations"
"$cli_bin" report --format json -o "$lttng_tmp/linear.json" "$lttng_tmp/linear" \
	2>"$lttng_tmp/report.err"
is "linear: cudatrace report reads the trace" "$?" 0
# NAME:LAUNCHES of each cuBLAS kernel, from the ledger and from the report.
sim_gemms=$(grep ' op=launch ' "$lttng_tmp/linear.ledger" |
	sed -n 's/.* name=\(cublas[A-Za-z]*_sim_gemm[^ ]*\) .*/\1/p' | sort | uniq -c |
	awk '{print $2 ":" $1}' | tr '\n' ' ')
ok "linear: the ledger has launches of cuBLAS's and cuBLASLt's kernels ($sim_gemms)" \
	test "$(echo "$sim_gemms" | wc -w)" -ge 2
is "linear: the report's launches of each cuBLAS kernel are the ledger's" \
	"$("$trace_python" -c 'import json, sys
print(" ".join("%s:%d" % (k["name"], k["launches"])
               for k in sorted(json.load(open(sys.argv[1]))["kernels"], key=lambda k: k["name"])
               if "_sim_gemm" in k["name"]), end=" ")' "$lttng_tmp/linear.json")" "$sim_gemms"
is "linear: the forward pass's cuBLASLt kernel is named by its Python line" \
	"$("$trace_python" -c 'import json, sys
print(" ".join(k["launch_site"] for k in json.load(open(sys.argv[1]))["kernels"]
               if k["name"].startswith("cublasLt_sim_gemm")))' "$lttng_tmp/linear.json")" \
	"torch-linear.py:$(line_of torch-linear.py FORWARD) in main"
# KERNEL:DOMAIN:OBJECTS of each cuBLAS launch: the API that launched it and
# the libcublas* objects its call stack goes through (library_load's
# base and size).
is "linear: each cuBLAS launch is a driver launch from inside the library" \
	"$("$trace_python" -c 'import sys
names, sites, stacks, libs, seen = {}, {}, {}, [], set()
for line in open(sys.argv[1]):
    event, _, rest = line.partition(" ")
    f = dict(kv.split("=", 1) for kv in rest.split() if "=" in kv)
    if event == "event=cudatrace:kernel_name":
        names[f["kernel_id"]] = f["name"]
    elif event == "event=cudatrace:call_site":
        sites[f["vpid"], f["correlation_id"]] = f["stack_id"]
    elif event == "event=cudatrace:call_stack":
        stacks[f["stack_id"]] = [int(a, 16) for a in f["frames"].split(",") if a]
    elif event == "event=cudatrace:library_load" and f["soname"].startswith("libcublas"):
        libs.append((int(f["base"], 16), int(f["size"]), f["soname"]))
    elif event == "event=cudatrace:launch" and "_sim_gemm" in names.get(f["kernel_id"], ""):
        frames = stacks.get(sites.get((f["vpid"], f["correlation_id"])), [])
        within = sorted({s for a in frames for b, n, s in libs if b <= a < b + n})
        seen.add("%s:%s:%s" % (names[f["kernel_id"]], f["api_domain"], ",".join(within) or "-"))
print(" ".join(sorted(seen)))' "$lttng_tmp/linear.events")" \
	"cublasLt_sim_gemm_f32:driver:libcublasLt.so.13 cublas_sim_gemm_f32:driver:libcublas.so.13"

# Batches of varying length sliced from a dataset in host memory: each
# copy differs from the last by its addresses and size, and is a
# repeat_moved of the first (doc/events.md); the trace still holds every
# copy of the ledger, and the report's transfers are what the program
# moved by its tensors' sizes.
CLI_TIMEOUT=120 cli_record loader -o "$lttng_tmp/loader" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-loader.py"
cli_status_is "loader: record exits with the program's status" 0
cli_trace_checked loader "loader: the trace reads back and holds the ledger's operations"
ok "loader: its copies are moved repeats in runs" \
	grep -q 'event=cudatrace:repeat_run .*moved=[0-9]' "$lttng_tmp/loader.events"
"$cli_bin" report --format json -o "$lttng_tmp/loader.json" "$lttng_tmp/loader" \
	2>"$lttng_tmp/report.err"
is "loader: cudatrace report reads the trace" "$?" 0
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/loader.out" | head -n 1; }
is "loader: the bytes and copies to the device and back are the program's" \
	"$("$trace_python" -c 'import json, sys
rows = json.load(open(sys.argv[1]))["transfers"]["by_direction"]
total = lambda d, k: sum(r[k] for r in rows if r["direction"] == d)
print(total("HtoD", "bytes"), total("HtoD", "count"), total("DtoH", "bytes"),
      total("DtoH", "count"))' \
		"$lttng_tmp/loader.json")" "$(fact htod) $(fact dtoh)"

# A DataLoader with pin_memory=True (torch-uploads.py): PyTorch copies
# each batch into the pinned block its caching host allocator hands back
# step after step, and uploads it from there, other bytes from the same
# address each time; two tensors that never change are uploaded every
# step too. The memcpy events' samples tell them apart: the report's
# repeated uploads are the two unchanged tensors' lines, once a step, and
# not the batches'.
CLI_TIMEOUT=120 cli_record uploads -o "$lttng_tmp/uploads" -- \
	"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-uploads.py"
cli_status_is "uploads: record exits with the program's status" 0
"$cli_bin" report --format json -o "$lttng_tmp/uploads.json" "$lttng_tmp/uploads" \
	2>"$lttng_tmp/report.err"
is "uploads: cudatrace report reads the trace" "$?" 0
fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/uploads.out" | head -n 1; }
same=$(grep -n '# SAME$' "$cli_here/torch-uploads.py" | cut -d: -f1 | tr '\n' ' ')
is "uploads: the repeated uploads are the unchanged tensors', one a step, not the batches'" \
	"$("$trace_python" -c 'import json, sys
found = [f for f in json.load(open(sys.argv[1]))["transfers"]["findings"]
         if f["kind"] == "repeated_upload"]
print(" ".join("%s:%d" % (f["site"].split(" ")[0].split(":")[1], f["count"])
               for f in sorted(found, key=lambda f: f["site"])))' "$lttng_tmp/uploads.json")" \
	"$(for line in $same; do printf '%s:%s ' "$line" "$(fact steps)"; done | sed 's/ $//')"
ok "uploads: each says the same sampled bytes were sent" \
	test "$(grep -c 'in a row with the same sampled bytes' "$lttng_tmp/uploads.json")" -ge 2

# A share of the device (torch-share.py): set_per_process_memory_fraction
# lets PyTorch use a quarter of it, and its error comes with most of the
# device free. The first page says the share refused it, with PyTorch's
# own figures, whether the probe saw the error or only its message.
share_line=$(grep -n '# SHARE-HERE$' "$cli_here/torch-share.py" | cut -d: -f1)
for probe in on off; do
	if [ $probe = on ]; then set --; else set -- --no-python-probe; fi
	CLI_TIMEOUT=120 cli_record share-$probe -o "$lttng_tmp/share-$probe" "$@" -- \
		"$CUDASIM_ENV" --libdir "$trace_simdir" "$python" "$cli_here/torch-share.py"
	cli_status_is "share, probe $probe: record exits with the program's status" 1
	"$cli_bin" report --format json -o "$lttng_tmp/share-$probe.json" "$lttng_tmp/share-$probe" \
		2>"$lttng_tmp/report.err"
	is "share, probe $probe: cudatrace report reads the trace" "$?" 0
	fact() { sed -n "s/^# fact $1 //p" "$lttng_tmp/share-$probe.out" | head -n 1; }
	is "share, probe $probe: the first finding: PyTorch's share of the device refused it" \
		"$("$trace_python" -c 'import json, sys
f = json.load(open(sys.argv[1]))["findings"][0]
n = f["numbers"]
print(f["kind"], f["verdict"], n["limit_bytes"], n["reserved_bytes"],
      "torch.cuda.set_per_process_memory_fraction" in f["advice"],
      "torch-share.py:%s in <module>" % sys.argv[2] in f["summary"])' \
			"$lttng_tmp/share-$probe.json" "$share_line")" \
		"framework_oom limit_reached $(fact allowed) $(fact reserved) True True"
done
tap_done
