#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-growth.py REPORT.json PROGRAM.py PROGRAM.out - the growth finding of
a report of examples/python/memory_growth.py against the program itself:
how many steps it ran and what it kept, from its own printout ("step N: M
MiB kept"), and the line that allocates what it keeps, from its source
(the line that calls malloc(KEPT_PER_STEP)), never from an earlier output
of ours.

  check-growth.py --none REPORT.json NAME
      the report of example NAME has no growth: no growing site, range or
      finding of one.

Prints one line per check, "ok DESCRIPTION" or "not ok DESCRIPTION: why",
for tests/cli/record-examples.sh to count.
"""
import json
import os
import re
import sys

MIB = 1 << 20
GROWTH_KINDS = ("site_growth", "memory_growth")


def say(passed, description, why=""):
    print("%s %s%s" % ("ok" if passed else "not ok", description,
                       "" if passed else ": " + why))


def printout(path):
    """(steps, MiB kept at the end) of the program's own lines."""
    steps = kept = None
    with open(path) as out:
        for line in out:
            found = re.match(r"step\s+(\d+):\s+(\d+) MiB kept", line)
            if found:
                steps, kept = int(found.group(1)) + 1, int(found.group(2))
    return steps, kept


def keeping_line(path):
    """The line of the source that allocates what each step keeps."""
    with open(path) as src:
        for number, text in enumerate(src, 1):
            if re.search(r"malloc\(KEPT_PER_STEP\)", text):
                return number
    return None


def check_growth(report, program, out):
    steps, kept = printout(out)
    line = keeping_line(program)
    say(steps and kept and line, "the program's printout and source give steps, MiB kept and "
        "the line", repr((steps, kept, line)))
    if not (steps and kept and line):
        return
    site = "%s:%d in step" % (os.path.basename(program), line)
    findings = report["findings"]
    growth = [f for f in findings if f["kind"] in GROWTH_KINDS]
    say(len(growth) == 1 and growth[0]["kind"] == "site_growth",
        "one growth finding, of a call site (no NVTX range in the program)",
        repr([(f["kind"], f["summary"]) for f in growth]))
    say(findings and findings[0]["kind"] == "site_growth",
        "it is the first finding", repr([f["kind"] for f in findings]))
    if not growth:
        return
    f = growth[0]
    n = f["numbers"]
    say(f["where"]["site"] == site, "it names the line that keeps the memory (%s)" % site,
        repr(f["where"]))
    say(n["allocations"] == steps and n["freed"] == 0,
        "%d allocations, one a step, none freed" % steps, repr(n))
    say(n["held_at_end_bytes"] == kept * MIB, "%d MiB held at the end" % kept, repr(n))
    say(n["growth_per_rise_bytes"] * steps == kept * MIB,
        "%.2f MiB more each step" % (kept / steps), repr(n))
    say(n["largest_bytes"] * steps == kept * MIB, "each allocation the step's share", repr(n))
    sites = report["memory"]["growing_sites"]
    say(len(sites) == 1 and sites[0]["line"] == line and sites[0]["function"] == "step" and
        os.path.basename(sites[0]["file"] or "") == os.path.basename(program),
        "memory.growing_sites: the site's file, line and function are the source's",
        repr(sites))
    want = ("%s allocated %d times %.2f MiB and freed none: %.2f MiB held at the end, growing "
            "%.2f MiB each time" % (site, steps, kept / steps, kept, kept / steps))
    say(f["summary"] == want, "the summary says it in those numbers", repr(f["summary"]))


def check_none(report, name):
    growth = [f["summary"] for f in report["findings"] if f["kind"] in GROWTH_KINDS]
    say(not growth, "%s: no growth finding" % name, repr(growth))
    memory = report["memory"]
    say(not memory["growing_sites"] and not memory["growing_ranges"],
        "%s: no growing site or range" % name,
        repr((memory["growing_sites"], memory["growing_ranges"])))


def main():
    if sys.argv[1] == "--none":
        with open(sys.argv[2]) as f:
            check_none(json.load(f), sys.argv[3])
        return
    with open(sys.argv[1]) as f:
        check_growth(json.load(f), sys.argv[2], sys.argv[3])


main()
