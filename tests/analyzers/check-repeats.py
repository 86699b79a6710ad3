#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-repeats.py DIR - TAP: what report-repeats.sh made in DIR (the
truth of make-ctf.py's "repeats" trace in truth.json, its JSON report in
json.out, its GPU-time trace as babeltrace2 prints it in gpu-time.txt)
against that truth: the calls the repeats stand for are in every figure,
those of the repeats whose event is not in the trace in none."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tracecheck import Tap  # noqa: E402  pylint: disable=wrong-import-position


def main():
    tmp = sys.argv[1]
    with open(os.path.join(tmp, "truth.json"), encoding="utf-8") as f:
        truth = json.load(f)
    with open(os.path.join(tmp, "json.out"), encoding="utf-8") as f:
        report = json.load(f)
    tap = Tap()
    for field in ("unmatched_repeats", "unmatched_gpu_records"):
        tap.ok(report["trace"][field] == truth[field],
               f"json: trace: {field} is the truth's ({truth[field]})",
               [report["trace"].get(field)])
    transfers = report["transfers"]
    for field, want in (("copies", "copies"), ("bytes", "bytes"),
                        ("host_time_ns", "copy_host_ns"), ("gpu_time_ns", "copy_gpu_ns")):
        tap.ok(transfers.get(field) == truth[want],
               f"json: transfers: {field} is the truth's ({truth[want]})",
               [transfers.get(field)])
    apis = {a["name"]: a for a in report["api"]}
    for name, count in truth["calls"].items():
        tap.ok(apis.get(name, {}).get("count") == count, f"json: api: {count} calls of {name}",
               [apis.get(name)])
    tap.ok(apis.get("cudaMemcpyAsync", {}).get("total_ns") == truth["copy_host_ns"],
           "json: api: cudaMemcpyAsync's host time is the copies' (each entry read back)",
           [apis.get("cudaMemcpyAsync")])
    rows = {k["name"]: k["count"] for k in report["kernels"]}
    tap.ok(rows == truth["kernels"], f"json: kernels: the runs are the truth's ({truth['kernels']})",
           [rows])
    with open(os.path.join(tmp, "gpu-time.txt"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    copies = [line for line in lines if "memcpy_begin" in line]
    kernels = [line for line in lines if "kernel_begin" in line]
    tap.ok(len(copies) == truth["copies"], f"export: {truth['copies']} copies", [len(copies)])
    tap.ok(len(kernels) == sum(truth["kernels"].values()),
           f"export: {sum(truth['kernels'].values())} kernel runs", [len(kernels)])
    return tap.done()


sys.exit(main())
