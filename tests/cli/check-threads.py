#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The memory figures of a report (JSON) against the simulator's ledger,
for a program whose threads allocate and free at once (record-threads.sh).

    check-threads.py LEDGER REPORT.json [THREADS]

With THREADS, the process exited while its THREADS threads allocated and
freed: its exit() lets the calls under way end and keeps new ones from
starting, so the counts are the ledger's, unless the report says a call
was cut (caveats of cause unfinished_calls): a call under way then may
have been done by the driver with its record lost, so the counts are
bounds (each thread had at most one call under way): allocations at most
THREADS short, frees between the report's and that plus its
unfinished_frees, each said to be a bound.

Prints TAP: for the traced process's device 0,
the allocations, frees and bytes live at the end against the ledger's,
the ledger's peak inside the report's bounds (peak_low_bytes ..
peak_high_bytes), and the reported peak within 1 % of the ledger's or
stated as a range on the first page. The ledger is in the order the
driver did things (each line written as it happened, O_APPEND), so its
peak is the truth the trace's order approximates.
"""
import json
import sys

DEVICE_KINDS = {"device", "pitch", "managed", "async", "vmm_physical"}


def ledger_figures(path):
    live = {}
    bytes_live = 0
    peak = 0
    allocs = frees = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            kv = dict(p.split("=", 1) for p in line.split() if "=" in p)
            op = kv.get("op")
            if op not in ("alloc", "free") or kv.get("kind") not in DEVICE_KINDS:
                continue
            if kv.get("dev") != "0":
                continue
            key = (kv["pid"], kv["kind"], kv["addr"])
            size = int(kv["size"])
            if op == "alloc":
                allocs += 1
                live[key] = size
                bytes_live += size
                peak = max(peak, bytes_live)
            elif key in live:
                frees += 1
                bytes_live -= live.pop(key)
    return {"allocations": allocs, "frees": frees, "live": bytes_live, "peak": peak}


def caveat(d, figure):
    return {c["caveat"] for c in d.get("caveats", [])
            if c.get("figure") == figure and c.get("cause") == "unfinished_calls"}


def exit_bounds(ok, d, ledger, threads):
    allocs, frees, unfinished = d["allocations"], d["frees"], d["unfinished_frees"]
    print("# exit: report %d allocations, %d frees (%d unfinished); ledger %d, %d" %
          (allocs, frees, unfinished, ledger["allocations"], ledger["frees"]))
    if not caveat(d, "allocations"):
        # exit() let the calls under way end, and kept new ones from
        # starting (libtrace/exit-gate.h): the trace is the ledger's
        ok(allocs == ledger["allocations"] and frees == ledger["frees"] and
           d["live_at_end_bytes"] == ledger["live"],
           "exact, as no call was cut: allocations %d, frees %d, live %d (ledger %d, %d, %d)" %
           (allocs, frees, d["live_at_end_bytes"], ledger["allocations"], ledger["frees"],
            ledger["live"]))
        return
    ok(allocs <= ledger["allocations"] <= allocs + threads,
       "allocations: the ledger's %d at most %d above the report's %d" %
       (ledger["allocations"], threads, allocs))
    ok(frees <= ledger["frees"] <= frees + unfinished + threads,
       "frees: the ledger's %d between the report's %d and that plus the releases "
       "under way" % (ledger["frees"], frees))
    # The releases under way are the trace's evidence that calls were cut
    # short; an allocation under way alone leaves none (its call is
    # recorded at its exit only), and is bounded above.
    if unfinished:
        ok("lower_bound" in caveat(d, "frees") and "lower_bound" in caveat(d, "allocations"),
           "allocations and frees are said to be lower bounds")
        ok("uncertain" in caveat(d, "live_at_end_bytes"),
           "the bytes live at the end are said to be uncertain")


def main():
    ledger = ledger_figures(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        report = json.load(f)
    devices = [d for d in report["memory"]["devices"] if d["device"] == 0]
    n = 0

    def ok(cond, what):
        nonlocal n
        n += 1
        print(("ok" if cond else "not ok") + " - " + what)

    ok(len(devices) == 1, "one process and device 0 in the report")
    if len(devices) != 1:
        print("1..%d" % n)
        return
    d = devices[0]
    if len(sys.argv) > 3:
        exit_bounds(ok, d, ledger, int(sys.argv[3]))
    else:
        ok(d["allocations"] == ledger["allocations"],
           "allocations: report %d, ledger %d" % (d["allocations"], ledger["allocations"]))
        ok(d["frees"] == ledger["frees"],
           "frees: report %d, ledger %d" % (d["frees"], ledger["frees"]))
        ok(d["live_at_end_bytes"] == ledger["live"],
           "live at the end: report %d, ledger %d" % (d["live_at_end_bytes"], ledger["live"]))
    truth = ledger["peak"]
    low, high, peak = d["peak_low_bytes"], d["peak_high_bytes"], d["peak_bytes"]
    ok(low <= truth <= high,
       "the ledger's peak %d is within the report's bounds %d .. %d" % (truth, low, high))
    off = abs(peak - truth) / truth if truth else 0.0
    print("# peak: report %d, ledger %d (%.2f %% off), bounds %d .. %d" %
          (peak, truth, 100 * off, low, high))
    ranged = any(c.get("figure") == "peak_bytes" and c.get("cause") == "overlapping_calls"
                 for c in d.get("caveats", []))
    ok(off <= 0.01 or ranged,
       "the peak within 1 %% of the ledger's (%.2f %% off) or stated as a range" % (100 * off))
    print("1..%d" % n)


if __name__ == "__main__":
    main()
