#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-memory-report.py - compare the trace and memory sections of
`cudatrace report --format json` with the truth, as TAP lines.

  check-memory-report.py synthetic TRUTH.json REPORT.json
      the truth make-ctf.py printed for its "basic" trace

  check-memory-report.py accounting TRUTH.json REPORT.json
      the truth make-ctf.py printed for its "accounting" trace: per process,
      the peak, the leaks, what CUDA reclaimed, the caveats and their
      causes, a verdict withheld, the pools at the peak and at the end

  check-memory-report.py ledger LEDGER REPORT.json [--verdict V ...]
                  [--leak-site S] [--growing RANGE] [--complete yes|no]
                  [--caveat CAUSE ...] [--holder PID:BYTES ...]
      the simulator's ledger (tests/cudasim/README.md): per process and
      device, the peak of the device kinds and exactly the allocations live
      at it, what is live at the end, every failed allocation with its size
      and free memory, the verdicts expected for the failures in order, the
      causes of the report's caveats (memory.caveats): none unless told, and
      the other processes NVML listed on the device of each failure
      (CUDASIM_OTHER_PROCESSES), which the findings name
"""
import argparse
import json
import sys

import ct_contract

# The kinds whose bytes count as device memory, as the event contract says.
DEVICE_KINDS = {kind for kind, flags in ct_contract.ENUM_FLAGS["mem_kind"].items()
                if flags & ct_contract.MEM_FLAG_DEVICE}
# A host event is emitted after the operation: how much later its time may be.
TIME_SLACK_NS = 200_000_000

tests = 0
failures = 0


def ok(cond, desc, *details):
    global tests, failures
    tests += 1
    if not cond:
        failures += 1
    print(f"{'ok' if cond else 'not ok'} {tests} - {desc}")
    if not cond:
        for d in details:
            print(f"#   {d}")


def load_report(path):
    with open(path) as f:
        return json.load(f)


# ------------------------------------------------------------------ ledger


class Device:
    """What the ledger says about one (pid, device)."""

    def __init__(self):
        self.live = {}  # (space, address) -> (size, kind, t)
        self.on_device = 0
        self.peak = 0
        self.peak_t = None
        self.peak_set = set()


def space(kind):
    return {"vmm_physical": 1, "vmm_map": 2}.get(kind, 0)


def read_ledger(path):
    devices = {}
    failed = []
    with open(path) as f:
        for line in f:
            kv = dict(item.split("=", 1) for item in line.split() if "=" in item)
            op = kv.get("op")
            if op not in ("alloc", "free", "alloc_failed"):
                continue
            key = (int(kv["pid"]), int(kv["dev"]))
            if op == "alloc_failed":
                failed.append({"pid": key[0], "device": key[1], "size": int(kv["size"]),
                               "free": int(kv["free"]), "total": int(kv["total"]),
                               "kind": kv["kind"], "t": int(kv["t"])})
                continue
            kind = kv["kind"]
            if kind == "vmm_map":
                continue
            d = devices.setdefault(key, Device())
            addr = (space(kind), int(kv["addr"], 16))
            size = int(kv["size"])
            if op == "alloc":
                d.live[addr] = (size, kind, int(kv["t"]))
                if kind in DEVICE_KINDS:
                    d.on_device += size
                    if d.on_device > d.peak:
                        d.peak = d.on_device
                        d.peak_t = int(kv["t"])
                        d.peak_set = {a for a, v in d.live.items() if v[1] in DEVICE_KINDS}
            elif addr in d.live:
                size, kind, _ = d.live.pop(addr)
                if kind in DEVICE_KINDS:
                    d.on_device -= size
    return devices, failed


def check_device(name, e, d, args):
    ok(e["peak_bytes"] == d.peak, f"{name}: peak {d.peak} bytes as in the ledger",
       f"report {e['peak_bytes']}")
    if d.peak:
        late = (e["peak_time_ns"] or 0) - d.peak_t
        ok(0 <= late < TIME_SLACK_NS, f"{name}: peak time that of the ledger's",
           f"report {e['peak_time_ns']} ledger {d.peak_t}")
    got = {a["address"] for a in e["peak_allocations"]}
    want = {a for (_, a) in d.peak_set}
    ok(e["peak_allocation_count"] == len(want) and got == want,
       f"{name}: exactly the {len(want)} allocations live at the peak",
       f"missing {sorted(hex(a) for a in want - got)}",
       f"extra {sorted(hex(a) for a in got - want)}")
    live_device = sum(v[0] for v in d.live.values() if v[1] in DEVICE_KINDS)
    ok(e["live_at_end_bytes"] == live_device,
       f"{name}: {live_device} bytes live at the end", f"report {e['live_at_end_bytes']}")
    got = {(a["address"], a["size"]) for a in e["leaks"]}
    want = {(a, v[0]) for (_, a), v in d.live.items()}
    ok(e["leak_count"] == len(want) and got == want,
       f"{name}: the {len(want)} allocations live at the end are the leaks",
       f"missing {sorted((hex(a), s) for a, s in want - got)}",
       f"extra {sorted((hex(a), s) for a, s in got - want)}")
    if args.leak_site and want:
        sites = {a["site"] for a in e["leaks"] if a["size"] == args.leak_size}
        ok(sites == {args.leak_site}, f"{name}: the leaks are at {args.leak_site}",
           f"sites {sorted(sites)}")


def check_failures(report, failed, args):
    reported = report["memory"]["failures"]
    ok(len(reported) == len(failed) and report["memory"]["failure_count"] == len(failed),
       f"{len(failed)} failed allocations as in the ledger", f"report {len(reported)}")
    for i, (want, got) in enumerate(zip(failed, reported)):
        ok(got["requested_bytes"] == want["size"] and got["pid"] == want["pid"],
           f"failure {i + 1}: {want['size']} bytes asked", f"report {got['requested_bytes']}")
        ok(got["free_bytes"] == want["free"] and got["total_bytes"] == want["total"],
           f"failure {i + 1}: free {want['free']} of {want['total']} as the simulator saw it",
           f"report free {got['free_bytes']} total {got['total_bytes']}")
        late = got["time_ns"] - want["t"]
        ok(0 <= late < TIME_SLACK_NS, f"failure {i + 1}: time that of the ledger's",
           f"report {got['time_ns']} ledger {want['t']}")
        if i < len(args.verdict):
            ok(got["verdict"] == args.verdict[i],
               f"failure {i + 1}: verdict {args.verdict[i]}",
               f"report {got['verdict']}: {got['explanation']}")
        if args.holder:
            others = sorted(f"{h['pid']}:{h['bytes']}" for h in got["holders"] if not h["self"])
            ok(others == sorted(args.holder),
               f"failure {i + 1}: NVML's other processes on the device: {args.holder}",
               f"report {others}")
            own = [h for h in got["holders"] if h["self"]]
            ok(len(own) == 1 and own[0]["bytes"] > 0,
               f"failure {i + 1}: and the failing process itself, marked so", f"report {own}")
    if args.holder:
        told = [f for f in report["findings"] if f["kind"] == "allocation_failure"]
        for holder in args.holder:
            pid = holder.split(":")[0]
            ok(told and all(f"pid {pid}" in f["explanation"] for f in told),
               f"the failure's finding names pid {pid}",
               *[f["explanation"] for f in told])
        # named already: no tool is needed to find them
        ok(told and all("NVML listed" in f["advice"] and "nvidia-smi" not in f["advice"]
                        for f in told),
           "what to do points at the processes it named", *[f["advice"] for f in told])


def check_ledger(args):
    report = load_report(args.report)
    devices, failed = read_ledger(args.ledger)
    entries = {(e["pid"], e["device"]): e for e in report["memory"]["devices"]}
    complete = args.complete == "yes"
    ok(report["trace"]["complete"] == complete,
       f"the report says the trace is {'complete' if complete else 'cut short'}",
       f"complete={report['trace']['complete']} error={report['trace'].get('error')}")
    for key, d in sorted(devices.items()):
        name = f"pid {key[0]} device {key[1]}"
        e = entries.get(key)
        ok(e is not None, f"{name}: in the report")
        if e is not None:
            check_device(name, e, d, args)
    check_failures(report, failed, args)
    # a trace recorded from the program's start, with nothing lost, shows every allocation
    causes = sorted({c["cause"] for c in report["memory"]["caveats"]})
    ok(causes == sorted(args.caveat), f"caveats: {sorted(args.caveat) or 'none'}",
       f"report {report['memory']['caveats']}")
    ranges = {g["range"] for g in report["memory"]["growing_ranges"]}
    for growing in args.growing:
        ok(growing in ranges, f"NVTX range {growing} found growing", f"ranges {sorted(ranges)}")


# ------------------------------------------------------------------ synthetic


def check_synthetic(args):
    with open(args.truth) as f:
        truth = json.load(f)
    report = load_report(args.report)
    trace = report["trace"]
    ok(trace["events"] == truth["events"], f"{truth['events']} events read",
       f"report {trace['events']}")
    ok(trace["discarded_events"] == truth["discarded_events"],
       "LTTng's discarded events counted", f"report {trace['discarded_events']}")
    ok(trace["dropped_records"] == truth["dropped_records"], "CUPTI's dropped records counted",
       f"report {trace['dropped_records']}")
    ok(trace["complete"] is True, "the trace is complete")
    ok(trace["end_ns"] == truth["end_ns"],
       "event times are the clock's own ns (those of the GPU fields)",
       f"report {trace['end_ns']} truth {truth['end_ns']}")
    devices = report["memory"]["devices"]
    ok(len(devices) == 1 and devices[0]["pid"] == truth["pid"], "one process, one device")
    d = devices[0]
    ok(d["peak_bytes"] == truth["peak_bytes"] and d["peak_time_ns"] == truth["peak_time_ns"],
       "the peak: bytes and time", f"report {d['peak_bytes']} at {d['peak_time_ns']}")
    got = sorted((a["address"], a["size"], a["alloc_time_ns"]) for a in d["leaks"])
    want = sorted((a["address"], a["size"], a["alloc_time_ns"]) for a in truth["leaks"])
    ok(got == want, "exactly the leaks", f"report {got}", f"truth {want}")
    ok({a["site"] for a in d["leaks"]} == {"train/step:cudaMalloc"},
       "the leaks are at train/step:cudaMalloc", f"sites {[a['site'] for a in d['leaks']]}")
    failed = report["memory"]["failures"]
    ok(len(failed) == 1 and failed[0]["verdict"] == truth["failure"]["verdict"]
       and failed[0]["withheld_verdict"] == truth["failure"].get("withheld_verdict")
       and failed[0]["requested_bytes"] == truth["failure"]["requested_bytes"]
       and failed[0]["free_bytes"] == truth["failure"]["free_bytes"],
       f"the failure: {truth['failure']['verdict']}", f"report {failed}")
    # the losses: from when, and what they make of the figures
    ok(trace.get("discarded_from_ns") == truth["discarded_from_ns"],
       "LTTng's loss: from the end of the packet before it",
       f"report {trace.get('discarded_from_ns')}")
    marks = {(c["figure"], c["caveat"]) for c in d["caveats"]
             if c["cause"] == "events_discarded"}
    ok({("leaks", "possible"), ("peak_bytes", "uncertain"),
        ("live_at_end_bytes", "uncertain")} <= marks,
       "after LTTng's loss: possible leaks, uncertain peak and live bytes", f"report {marks}")
    causes = sorted(c["cause"] for c in report["memory"]["caveats"])
    ok(causes == ["events_discarded", "records_dropped"],
       "memory.caveats explains both losses", f"report {causes}")
    ranges = [g["range"] for g in report["memory"]["growing_ranges"]]
    ok(ranges == ["train/step"], "train/step grows step after step", f"report {ranges}")


# ------------------------------------------------------------------ accounting


def check_accounting(args):
    """The cases of make-ctf.py's accounting trace, one process each."""
    with open(args.truth) as f:
        truth = json.load(f)
    report = load_report(args.report)
    memory = report["memory"]
    devices = {e["pid"]: e for e in memory["devices"]}
    frag = {e["pid"]: e for e in memory["fragmentation"]}
    failures = {e["pid"]: e for e in memory["failures"]}
    for key, want in sorted(truth["processes"].items()):
        pid = int(key)
        name = f"pid {pid}"
        e = devices.get(pid)
        ok(e is not None, f"{name}: in the report")
        if e is None:
            continue
        ok(e["peak_bytes"] == want["peak_bytes"], f"{name}: peak {want['peak_bytes']} bytes",
           f"report {e['peak_bytes']}")
        if "peak_time_ns" in want:
            ok(e["peak_time_ns"] == want["peak_time_ns"], f"{name}: peak time",
               f"report {e['peak_time_ns']} truth {want['peak_time_ns']}")
        if "peak_set" in want:
            got = sorted(a["address"] for a in e["peak_allocations"])
            ok(got == sorted(want["peak_set"]), f"{name}: exactly the allocations live at the peak",
               f"report {[hex(a) for a in got]}")
        ok(e["live_at_end_bytes"] == want["live_at_end_bytes"],
           f"{name}: {want['live_at_end_bytes']} bytes live at the end",
           f"report {e['live_at_end_bytes']}")
        got = sorted((a["address"], a["size"], a["alloc_time_ns"]) for a in e["leaks"])
        wanted = sorted((a["address"], a["size"], a["alloc_time_ns"]) for a in want["leaks"])
        ok(got == wanted, f"{name}: exactly the leaks", f"report {got}", f"truth {wanted}")
        got = sorted((r["address"], r["size"], r["alloc_time_ns"], r["reclaimed_ns"],
                      r["reclaimed_by"]) for r in e["reclaimed"])
        wanted = sorted((r["address"], r["size"], r["alloc_time_ns"], r["reclaimed_ns"],
                         r["reclaimed_by"]) for r in want["reclaimed"])
        ok(got == wanted and e["reclaimed_count"] == len(wanted)
           and all("never freed by the program" in r["note"] for r in e["reclaimed"]),
           f"{name}: the {len(wanted)} allocations CUDA reclaimed, never freed by the program",
           f"report {e['reclaimed']}")
        for field in ("failed_frees", "allocations", "before_window_allocations"):
            if field in want:
                ok(e[field] == want[field], f"{name}: {field} {want[field]}",
                   f"report {e[field]}")
        marks = {(c["figure"], c["caveat"]) for c in e["caveats"]}
        wanted = {tuple(c) for c in want["caveats"]}
        ok(wanted <= marks and (wanted or not marks),
           f"{name}: caveats {sorted(wanted) or 'none'}", f"report {sorted(marks)}")
        causes = sorted(c["cause"] for c in memory["caveats"] if c["pid"] == pid)
        ok(causes == sorted(want["causes"]), f"{name}: explained causes {want['causes']}",
           f"report {causes}")
        if "failure" in want:
            got = failures.get(pid, {})
            ok(got.get("verdict") == want["failure"]["verdict"]
               and got.get("withheld_verdict") == want["failure"]["withheld_verdict"],
               f"{name}: the failure's verdict {want['failure']['verdict']}, "
               f"{want['failure']['withheld_verdict']} withheld",
               f"report {got.get('verdict')}: {got.get('explanation')}")
        g = frag.get(pid)
        if "at_peak_pool" in want:
            ok([g["at_peak"]["pool_reserved_bytes"], g["at_peak"]["pool_used_bytes"]]
               == want["at_peak_pool"], f"{name}: the pools at the peak's time",
               f"report {g['at_peak']}")
            ok([g["at_end"]["pool_reserved_bytes"], g["at_end"]["pool_used_bytes"]]
               == want["at_end_pool"], f"{name}: the pools at the end", f"report {g['at_end']}")
            got = [{k: p[k] for k in want["pools"][0]} for p in g["pools"]]
            ok(got == want["pools"], f"{name}: the pools by identity", f"report {g['pools']}")
            marks = {(c["figure"], c["caveat"]) for c in g["caveats"]}
            ok({tuple(c) for c in want["frag_caveats"]} <= marks,
               f"{name}: the derived release is marked", f"report {sorted(marks)}")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("synthetic")
    s.add_argument("truth")
    s.add_argument("report")
    acc = sub.add_parser("accounting")
    acc.add_argument("truth")
    acc.add_argument("report")
    led = sub.add_parser("ledger")
    led.add_argument("ledger")
    led.add_argument("report")
    led.add_argument("--verdict", action="append", default=[])
    led.add_argument("--leak-site")
    led.add_argument("--leak-size", type=int, default=1 << 20)
    led.add_argument("--growing", action="append", default=[])
    led.add_argument("--complete", choices=("yes", "no"), default="yes")
    led.add_argument("--caveat", action="append", default=[],
                     help="a cause the report's memory caveats give (none when not told)")
    led.add_argument("--holder", action="append", default=[],
                     help="PID:BYTES another process held on the failures' device")
    args = parser.parse_args()
    try:
        if args.mode == "synthetic":
            check_synthetic(args)
        elif args.mode == "accounting":
            check_accounting(args)
        else:
            check_ledger(args)
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        ok(False, f"the report can be checked ({type(e).__name__}: {e})")
    print(f"1..{tests}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
