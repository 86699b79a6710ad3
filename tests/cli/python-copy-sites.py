#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""python-copy-sites.py REPORT.json PROGRAM.py PROGRAM.out - the transfer
hotspots of a report of tests/cli/python-copies.py against the program's
own source and printout: each line that decides a copy ends with
"# copies of FUNCTION" in the source, and the program prints "copies
FUNCTION N". Each function's copies must be one hotspot, named by that
line, with the count the program printed.

Prints one line per check, "ok DESCRIPTION" or "not ok DESCRIPTION: why",
for tests/cli/record-python-copies.sh to count.
"""
import json
import os
import re
import sys


def say(passed, description, why=""):
    print("%s %s%s" % ("ok" if passed else "not ok", description,
                       "" if passed else ": " + why))


def source_lines(path):
    """{function: line} of the program's copying lines."""
    lines = {}
    with open(path) as src:
        for number, text in enumerate(src, 1):
            found = re.search(r"# copies of (\w+)$", text.rstrip())
            if found:
                lines[found.group(1)] = number
    return lines


def printed_counts(path):
    """{function: copies} as the program counted them."""
    counts = {}
    with open(path) as out:
        for line in out:
            words = line.split()
            if len(words) == 3 and words[0] == "copies":
                counts[words[1]] = int(words[2])
    return counts


def main():
    report, program, printout = sys.argv[1:4]
    with open(report) as f:
        doc = json.load(f)
    name = os.path.basename(program)
    lines = source_lines(program)
    want = {"%s:%d in %s" % (name, lines[function], function): count
            for function, count in printed_counts(printout).items()}
    hotspots = doc["transfers"]["hotspots"]
    got = {}
    for h in hotspots:
        got[h["site"]] = got.get(h["site"], 0) + h["count"]
    say(len(want) == 3 and got == want,
        "transfers.hotspots: one per copying Python line, with the program's counts",
        "report %r, program %r" % (got, want))
    tids = {h["site"]: h["tid"] for h in hotspots}
    thread_site = "%s:%d in thread_copies" % (name, lines.get("thread_copies", 0))
    say(thread_site in tids and list(tids.values()).count(tids[thread_site]) == 1,
        "the thread's copies are its own hotspot, on its own thread", repr(tids))
    # The first page tells the costliest hotspot only when its copies
    # cost 1 % of the trace's duration or more (doc/report-schema.md,
    # transfer_hotspot): how long the program took between its copies
    # depends on the machine's load, so below that none is right too.
    costly = [f for f in doc["findings"] if f["kind"] == "transfer_hotspot"]
    worth = bool(hotspots) and hotspots[0]["cost_ns"] >= 0.01 * doc["trace"]["duration_ns"]
    say((bool(costly) or not worth) and all(f["where"]["site"] in want for f in costly),
        "each costly-copies finding names a Python line of the program",
        repr([f.get("where") for f in costly]) + " worth telling: %r" % worth)


if __name__ == "__main__":
    main()
