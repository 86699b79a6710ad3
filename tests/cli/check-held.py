#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-held.py - the leak finding of a program that holds GPU memory
until it ends, against its own printout and the simulator's ledger.

    check-held.py REPORT.json PROGRAM.out LEDGER

PROGRAM.out has "# held LINE COUNT BYTES" for each line of the program
that allocates what it never frees. Prints "ok WHAT" or "not ok WHAT: why"
lines (cli_checks): one leak finding, first, whose bytes and count are
what the ledger leaves allocated at the end and what the program says it
holds, and which names the line that holds the most, in the program's
terms (its file and line), with its count and bytes; its figures exact.
"""
import json
import sys


def say(good, what, why=""):
    print(("ok %s" % what) if good else ("not ok %s: %s" % (what, why)))


def ledger_held(path):
    """What the ledger's device allocations leave allocated: (count, bytes)."""
    live = {}
    with open(path) as f:
        for line in f:
            kv = dict(item.split("=", 1) for item in line.split() if "=" in item)
            if kv.get("op") == "alloc" and kv.get("kind") == "device":
                live[kv["addr"]] = int(kv["size"])
            elif kv.get("op") == "free" and kv.get("kind") == "device":
                live.pop(kv["addr"], None)
    return len(live), sum(live.values())


def main():
    report_path, out_path, ledger_path = sys.argv[1:4]
    with open(report_path) as f:
        report = json.load(f)
    with open(out_path) as f:
        held = [tuple(int(x) for x in l.split()[2:5]) for l in f if l.startswith("# held ")]
    leaks = [f for f in report["findings"] if f["kind"] == "leak"]
    say(len(held) == 2 and len(leaks) == 1 and report["findings"][0] is not None and
        report["findings"][0]["kind"] == "leak",
        "one leak finding, the first", repr([f["summary"] for f in report["findings"]]))
    if not leaks:
        return
    f = leaks[0]
    count, size = ledger_held(ledger_path)
    say((count, size) == (sum(h[1] for h in held), sum(h[2] for h in held)) and
        (f["numbers"]["leak_count"], f["numbers"]["leaked_bytes"], f["count"]) ==
        (count, size, count),
        "its bytes and count are what the ledger leaves allocated and the program holds "
        "(%d allocations, %d bytes)" % (count, size), repr((f["numbers"], f["count"])))
    line, n, most = max(held, key=lambda h: h[2])
    want = "ended with %.2f MiB on device 0 it never freed: %d allocations at held-to-end.py:%d " \
           "in " % (size / 1048576, n, line)
    say(want in f["summary"] and ", %.2f MiB and more at other sites" % (most / 1048576)
        in f["summary"],
        "it names the line that holds the most, with its count and bytes", repr(f["summary"]))
    say(f["certainty"] == "exact", "its figures are exact", repr(f["caveat"]))


if __name__ == "__main__":
    main()
