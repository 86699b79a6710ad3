#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Kernels, copies and memsets in the compact forms the tracer writes them
# (doc/events.md: launch_unconfigured, gpu_kernel_times, gpu_kernel_shaped
# and kernel_shape, gpu_memcpy_times, gpu_memset_times, gpu_batch),
# from make-ctf.py's "compact" trace, whose truth it prints: GPU records
# that hold only their times are given what their launch or memcpy says
# (kernel, configuration, stream, dynamic shared memory; bytes, stream),
# each kernel and copy of a batch its own times,
# a shaped one its launch's kernel and device and its shape's
# configuration; a
# record that came whole, a launch_unconfigured (a launch whose
# configuration only its record gives), a runtime call's copy whose whole
# record knows it by runtime_correlation_id, are read as before; times
# whose host event (or shape) is not in the trace are counted and said,
# and left out of every figure:
#   - `cudatrace report --format json`: the kernels table (runs, GPU time,
#     configuration, registers, shared memory, launch latencies), the
#     transfers totals and the trace section's unmatched_gpu_records are
#     the truth's; the text report's first page says what was lost;
#   - `cudatrace export --format ctf`: the GPU-time trace holds every run
#     and copy but the unmatched ones, on their host event's stream, and
#     export warns of those; a kernel's runs before its name came are
#     named by its id, those after by its name.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
report_synthetic compact
ok "text: the first page says 5 GPU operations ran whose call is not in the trace" \
	grep -q "^Lost: 5 GPU operations ran whose call is not in the trace" "$report_tmp/text.out"
ok "export: warns of the GPU times without their call" \
	grep -q "warning: 5 GPU operations have no call in the trace" "$report_tmp/export.err"

"$report_python" - "$report_tmp" >"$report_tmp/check.tap" 2>&1 <<'PY'
import json
import re
import sys

tmp = sys.argv[1]
truth = json.load(open(f"{tmp}/truth.json"))
report = json.load(open(f"{tmp}/json.out"))
n = 0


def check(name, cond, why=""):
    global n
    n += 1
    print(f"{'ok' if cond else 'not ok'} {n} - {name}")
    if not cond:
        print("# " + str(why)[:600])


check("json: unmatched_gpu_records is the truth's",
      report["trace"]["unmatched_gpu_records"] == truth["unmatched_gpu_records"],
      report["trace"].get("unmatched_gpu_records"))
rows = {k["name"]: k for k in report["kernels"]}
for name, want in truth["kernels"].items():
    row = rows.get(name, {})
    check(f"json: {name}: {want['count']} runs, {want['total_ns']} ns of GPU time",
          row.get("count") == want["count"] and row.get("total_ns") == want["total_ns"], row)
check("json: no other kernel (the unmatched run is left out)", set(rows) == set(truth["kernels"]),
      sorted(rows))
transfers = report["transfers"]
for field, value in truth["transfers"].items():
    check(f"json: transfers: {field} is the truth's ({value})", transfers.get(field) == value,
          transfers.get(field))
gemm, want = rows.get("gemm", {}), truth["gemm"]
for field in ("grid", "block", "shared_mem_bytes", "registers_per_thread",
              "launch_latency_count"):
    check(f"json: gemm's {field} is the truth's (from its launch and its times)",
          gemm.get(field) == want[field], (gemm.get(field), want[field]))
relu, want_relu = rows.get("relu", {}), truth["relu"]
for field in ("launches", "launch_latency_count", "grid"):
    check(f"json: relu's {field} is the truth's (launch_unconfigured and launch, "
          "their configuration from their records, whole or by their shape)",
          relu.get(field) == want_relu[field], (relu.get(field), want_relu[field]))
check("json: every run has its launch, and every launch its run but the one whose shape "
      "is lost", report["gpu"]["kernels_without_launch"] == 0
      and report["gpu"]["launches_without_kernel"] == truth["launches_without_kernel"],
      report["gpu"])

# The GPU-time trace: each run a begin and an end, on the launch's stream.
lines = open(f"{tmp}/gpu-time.txt").read().splitlines()
begins = [line for line in lines if "kernel_begin" in line]
check("export: every run but the unmatched one is a kernel_begin",
      len(begins) == sum(k["count"] for k in truth["kernels"].values()), len(begins))
copies = [line for line in lines if "memcpy_begin" in line]
check("export: every copy but the unmatched one is a memcpy_begin, with its memcpy's bytes",
      len(copies) == truth["transfers"]["copies"]
      and sum(int(re.search(r"bytes = (\d+)", c).group(1)) for c in copies)
      == truth["transfers"]["bytes"], copies)
check("export: each copy lasts what its record says (the batch's copies one by one)",
      sum(int(re.search(r"duration = (\d+)", c).group(1)) for c in copies)
      == truth["transfers"]["gpu_time_ns"], copies)
for name, want_runs in truth["kernels"].items():
    runs = [line for line in begins if f'name = "{name}"' in line]
    renamed = truth["exported_names"].get(name)
    if renamed:
        runs += [line for line in begins if f'name = "{renamed["before"]}"' in line]
    check(f"export: each {name} run lasts what its record says (a batch's one by one)",
          len(runs) == want_runs["count"]
          and sum(int(re.search(r"duration = (\d+)", r).group(1)) for r in runs)
          == want_runs["total_ns"], runs)
for name, renamed in truth["exported_names"].items():
    before = [line for line in begins if f'name = "{renamed["before"]}"' in line]
    check(f"export: the runs of {name} before its name came are named by its id, the others "
          "by its name", len(before) == renamed["runs_before"]
          and len([line for line in begins if f'name = "{name}"' in line])
          == truth["kernels"][name]["count"] - renamed["runs_before"], before)
memsets = [line for line in lines if "memset_begin" in line]
got = sorted((int(re.search(r"bytes = (\d+)", m).group(1)), int(re.search(r"value = (\d+)", m).group(1)),
              int(re.search(r"stream = (\d+)", m).group(1)),
              int(re.search(r"duration = (\d+)", m).group(1))) for m in memsets)
check("export: every memset but the unmatched one is a memset_begin, with its memset's bytes, "
      "value and stream and its record's duration (its times alone, whole, or in a batch)",
      got == sorted(tuple(m) for m in truth["memsets"]), (got, truth["memsets"]))
gemm_begins = [line for line in begins if 'name = "gemm"' in line]
check("export: gemm's runs are on the launch's stream",
      len(gemm_begins) == truth["kernels"]["gemm"]["count"]
      and all(re.search(r"stream = %d\b" % want["stream"], line) for line in gemm_begins),
      gemm_begins[:1])
print(f"1..{n}")
PY
tap_relay "compact" "$report_tmp/check.tap"
tap_done
