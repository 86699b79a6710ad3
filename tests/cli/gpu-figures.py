#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpu-figures.py REPORT LEDGER: the report's figures drawn from GPU activity
records beside the simulator's ledger's, one line each: "WHAT REPORT
LEDGER". The copies' count, bytes and GPU time (the ledger's gpu_start to
gpu_end), every copy matched with its GPU record, and for each kernel its
launches and GPU time."""
import json
import sys
from collections import defaultdict


def ledger_ops(path):
    with open(path, encoding="utf-8") as ledger:
        return [dict(kv.split("=", 1) for kv in line.split()) for line in ledger]


def gpu_ns(op):
    return int(op["gpu_end"]) - int(op["gpu_start"])


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        report = json.load(f)
    ops = ledger_ops(sys.argv[2])
    copies = [op for op in ops if op["op"] == "memcpy"]
    transfers = report["transfers"]
    print("copies", transfers["copies"], len(copies))
    print("copied_bytes", transfers["bytes"], sum(int(op["bytes"]) for op in copies))
    print("copy_gpu_time_ns", transfers["gpu_time_ns"], sum(gpu_ns(op) for op in copies))
    print("copies_without_gpu_record", transfers["copies_without_gpu_record"], 0)
    print("gpu_records_unmatched", transfers["gpu_records_unmatched"], 0)
    kernels = defaultdict(lambda: [0, 0])
    for op in ops:
        if op["op"] == "launch":
            kernels[op["name"]][0] += 1
            kernels[op["name"]][1] += gpu_ns(op)
    reported = {k["mangled_name"]: (k["count"], k["total_ns"]) for k in report["kernels"]}
    for name in sorted(set(kernels) | set(reported)):
        count, total = reported.get(name, ("none", "none"))
        print(f"{name}_runs", count, kernels[name][0])
        print(f"{name}_gpu_time_ns", total, kernels[name][1])


main()
