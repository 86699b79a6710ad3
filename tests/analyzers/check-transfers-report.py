#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare the transfers, kernels, gpu and api sections of a `cudatrace
report --format json --max-rows 0` report with the simulator's ledger of
the same run (tests/cudasim/README.md), and print TAP.

    check-transfers-report.py --workload transfers|copy-storm --ledger FILE --report FILE
"""
import argparse
import json
import sys

TESTS = []


def check(description, condition, *details):
    TESTS.append((bool(condition), description, details))


def read_ledger(path):
    ops = []
    with open(path) as f:
        for line in f:
            fields = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
            if "op" in fields:
                ops.append(fields)
    return ops


def gpu_ns(op):
    return int(op["gpu_end"]) - int(op["gpu_start"])


def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def union_length(intervals):
    total, end = 0, None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


def copies_by_kind(ops):
    """Ledger copies summed by (api, direction, host memory, sync)."""
    groups = {}
    for op in ops:
        if op["op"] != "memcpy":
            continue
        key = (op["api"], op["dir"], op["host"], op["sync"] == "1")
        g = groups.setdefault(key, [0, 0, 0])
        g[0] += 1
        g[1] += int(op["bytes"])
        g[2] += gpu_ns(op)
    return groups


def hotspots_by_kind(report):
    groups = {}
    for h in report["transfers"]["hotspots"]:
        key = (h["api"], h["direction"], h["host_memory"], h["sync"])
        g = groups.setdefault(key, [0, 0, 0])
        g[0] += h["count"]
        g[1] += h["bytes"]
        g[2] += h["gpu_time_ns"]
    return groups


def check_transfers(ops, report):
    copies = [op for op in ops if op["op"] == "memcpy"]
    transfers = report["transfers"]
    check("every copy of the ledger is counted", transfers["copies"] == len(copies),
          transfers["copies"], len(copies))
    check("every GPU record joined its copy", transfers["gpu_records_unmatched"] == 0 and
          transfers["copies_without_gpu_record"] == 0, transfers["gpu_records_unmatched"],
          transfers["copies_without_gpu_record"])
    ledger, traced = copies_by_kind(ops), hotspots_by_kind(report)
    check("count, bytes and GPU time by API, direction, host memory and sync are the "
          "ledger's (%d kinds)" % len(ledger), ledger == traced, ledger, traced)
    ranked = [h["cost_ns"] for h in transfers["hotspots"]]
    check("hotspots are ranked by cost", ranked == sorted(ranked, reverse=True), ranked)
    check("a copy costs at least its GPU time",
          all(h["cost_ns"] >= h["gpu_time_ns"] for h in transfers["hotspots"]))
    for h in transfers["hotspots"]:
        if h["gpu_time_ns"] > 0 and h["bandwidth_bytes_per_s"] is not None:
            expected = h["bytes"] * 1e9 / h["gpu_time_ns"]
            if abs(h["bandwidth_bytes_per_s"] - expected) > expected * 1e-9:
                check("bandwidth is bytes over GPU time", False, h)
                break
    else:
        check("bandwidth is bytes over GPU time", True)


def check_kernels(ops, report):
    launches = [op for op in ops if op["op"] == "launch"]
    by_name = {}
    for op in launches:
        by_name.setdefault(op["name"], []).append(gpu_ns(op))
    rows = {k["mangled_name"]: k for k in report["kernels"]}
    check("one row per kernel name (%d)" % len(by_name), set(rows) == set(by_name),
          sorted(rows), sorted(by_name))
    for name, times in by_name.items():
        row = rows.get(name)
        if not row:
            continue
        check("%s: count, total, min, max, median are the ledger's" % name,
              row["count"] == len(times) and row["total_ns"] == sum(times) and
              row["min_ns"] == min(times) and row["max_ns"] == max(times) and
              row["median_ns"] == median(times) and row["launches"] == len(times),
              row, times)
    gpu = report["gpu"]
    check("every launch got a launch latency", gpu["launch_latency_count"] == len(launches),
          gpu["launch_latency_count"], len(launches))
    check("launch latencies are positive",
          not launches or (gpu["launch_latency_min_ns"] or 0) > 0, gpu["launch_latency_min_ns"])
    intervals = {}
    for op in ops:
        if op["op"] in ("memcpy", "memset", "launch") and int(op.get("gpu_start", 0)) > 0:
            intervals.setdefault(int(op["dev"]), []).append(
                (int(op["gpu_start"]), int(op["gpu_end"])))
    devices = {d["device"]: d for d in gpu["devices"]}
    for device, spans in intervals.items():
        d = devices.get(device)
        check("device %d: busy time is the union of the ledger's GPU intervals" % device,
              d is not None and d["busy_ns"] == union_length(spans) and
              d["first_ns"] == min(s for s, _ in spans) and
              d["last_ns"] == max(e for _, e in spans),
              d and d["busy_ns"], union_length(spans))


def check_api(ops, report):
    rows = {r["name"]: r for r in report["api"]}
    calls = {}
    for op in ops:
        if op["op"] in ("memcpy", "launch"):
            calls[op["api"]] = calls.get(op["api"], 0) + 1
    for name, count in sorted(calls.items()):
        row = rows.get(name)
        check("api %s: one call per ledger operation (%d)" % (name, count),
              row is not None and row["calls"] == count and row["count"] == count and
              row["errors"] == 0 and row["open_at_end"] == 0, row)
    check("every API row is timed", all(r["count"] == r["calls"] for r in report["api"]))


def findings(report, kind):
    return [f for f in report["transfers"]["findings"] if f["kind"] == kind]


def check_advice(report):
    """Asynchronous copies are never told to become asynchronous, and the
    findings about the same copies never tell to do opposite things."""
    every = report["transfers"]["findings"]
    check("every finding says what to do apart from its message, at its end",
          all(f.get("advice") and (f["message"].endswith("; " + f["advice"]) or
                                   f["message"].endswith(": " + f["advice"])) for f in every),
          every)
    told = [f for f in every if not f["sync"] and "copy asynchronously" in f["advice"]]
    check("no asynchronous copy is told to copy asynchronously", not told, told)
    pinned_too = [f for f in every if f["host_memory"] == "pinned" and "pin " in f["advice"]]
    check("no copy from pinned memory is told to pin it", not pinned_too, pinned_too)
    # each finding's copies are a hotspot's, of its size class; a storm's every small one
    way = ("pid", "tid", "site", "direction", "host_memory", "sync")
    unsized = [f for f in every
               if (f["size_class"] is None) != (f["kind"] == "small_copy_storm") or
               (f["size_class"] is not None and
                not any(all(h[k] == f[k] for k in way) and h["size_class"] == f["size_class"]
                        for h in report["transfers"]["hotspots"]))]
    check("each finding names the size class of its hotspot's copies (none for a storm)",
          not unsized, unsized)
    # the first page's copies: their fix is one for copies of their size that leaves out
    # at least half of them (uploads of the same sampled bytes), else the costliest, and
    # says how many of them it counts
    for f in report["findings"]:
        if f["kind"] != "transfer_hotspot":
            continue
        h = report["transfers"]["hotspots"][0]
        theirs = [t for t in every if all(h[k] == t[k] for k in way) and
                  (t["size_class"] == h["size_class"] or
                   (t["size_class"] is None and h["mean_bytes"] < 64 << 10))]
        fix = [t for t in theirs if t["kind"] == "repeated_upload" and t["same_bytes"] and
               2 * t["count"] >= h["count"]][:1] or theirs[:1]
        want = None
        if fix:
            n, of = fix[0]["count"], h["count"]
            want = fix[0]["message"][:-len(fix[0]["advice"]) - 2] + (
                "" if n == of else f" ({n} of these {of} copies)" if n < of else
                f" (these {of} copies among them)")
        check("the costliest copies' finding gives the fix for copies of their size, and its "
              "count beside theirs", want is not None and f["explanation"] == want, f, fix, want)
        check("... and names it", f["verdict"] == fix[0]["kind"], f, fix)


def check_transfers_workload(ops, report, rounds):
    pageable = findings(report, "pageable_async")
    check("async copies from pageable memory are a finding",
          len(pageable) == 1 and pageable[0]["api"] == "cudaMemcpyAsync" and
          pageable[0]["direction"] == "HtoD" and pageable[0]["count"] == rounds, pageable)
    check("the download uploaded back is a round trip", len(findings(report, "round_trip")) >= 1,
          report["transfers"]["findings"])
    pinned = {op["src"] for op in ops if op["op"] == "memcpy" and op["dir"] == "HtoD" and
              op["host"] == "pinned" and op["bytes"] == "1048576"}
    repeated = findings(report, "repeated_upload")
    check("the pinned buffer uploaded again and again is a finding",
          len(repeated) == 1 and "0x%x" % repeated[0]["host_address"] in pinned,
          repeated, pinned)
    check("no storm of small copies here", not findings(report, "small_copy_storm"))
    check_advice(report)


def check_storm_workload(ops, report):
    hotspots = report["transfers"]["hotspots"]
    storm = [op for op in ops if op["op"] == "memcpy" and op["bytes"] == "4096"]
    bulk = [op for op in ops if op["op"] == "memcpy" and op["bytes"] == str(16 << 20)]
    first = hotspots[0] if hotspots else {}
    check("the storm of small pageable copies ranks first",
          first.get("site") == "storm:cudaMemcpy" and first.get("count") == len(storm) == 4000 and
          first.get("host_memory") == "pageable" and
          first.get("gpu_time_ns") == sum(gpu_ns(op) for op in storm), first)
    large = [h for h in hotspots if h["site"] == "bulk:cudaMemcpyAsync"]
    check("the large pinned copy ranks below it",
          len(large) == 1 and len(bulk) == 1 and large[0]["host_memory"] == "pinned" and
          large[0]["gpu_time_ns"] == gpu_ns(bulk[0]) and large[0]["cost_ns"] < first["cost_ns"] and
          hotspots.index(large[0]) > 0, large)
    storms = findings(report, "small_copy_storm")
    check("the storm is a finding", len(storms) == 1 and storms[0]["site"] == "storm:cudaMemcpy" and
          storms[0]["count"] == 4000, storms)
    check("no async pageable copy, repeated upload or round trip here",
          not findings(report, "pageable_async") and not findings(report, "repeated_upload") and
          not findings(report, "round_trip"), report["transfers"]["findings"])
    check_advice(report)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workload", required=True, choices=("transfers", "copy-storm"))
    parser.add_argument("--ledger", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    ops = read_ledger(args.ledger)
    with open(args.report) as f:
        report = json.load(f)
    check_transfers(ops, report)
    check_kernels(ops, report)
    check_api(ops, report)
    if args.workload == "transfers":
        check_transfers_workload(ops, report, args.rounds)
    else:
        check_storm_workload(ops, report)
    for n, (passed, description, details) in enumerate(TESTS, 1):
        print("%s %d - %s" % ("ok" if passed else "not ok", n, description))
        if not passed:
            for d in details:
                print("#   %s" % json.dumps(d, default=str)[:2000])
    print("1..%d" % len(TESTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
