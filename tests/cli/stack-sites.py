#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""stack-sites.py REPORT.json PROGRAM.out KEY - the sites of a report's
memory.devices[0].KEY (leak_sites, peak_sites) against the program's own
printout (tests/programs/stack-alloc.c: "leak FUNCTION FILE:LINE SIZE"
per allocation it leaves live, "freed ..." per one it frees).

Prints one line per check, "ok DESCRIPTION" or "not ok DESCRIPTION: why",
for tests/cli/record-stacks.sh to count.
"""
import json
import os
import sys

FOLDED = ("libcuda.so", "libcudart.so", "libcupti.so", "libcudatrace.so")


def say(passed, description, why=""):
    print("%s %s%s" % ("ok" if passed else "not ok", description,
                       "" if passed else ": " + why))


def expected_sites(path):
    """{(function, file basename, line): [count, bytes]} of the leaks, and the other functions."""
    leaks, freed = {}, set()
    with open(path) as out:
        for line in out:
            what, function, where, size = line.split()
            file, lineno = where.rsplit(":", 1)
            if what != "leak":
                freed.add(function)
                continue
            site = leaks.setdefault((function, os.path.basename(file), int(lineno)), [0, 0])
            site[0] += 1
            site[1] += int(size)
    return leaks, freed


def main():
    report, printout, key = sys.argv[1:4]
    with open(report) as f:
        doc = json.load(f)
    devices = doc["memory"]["devices"]
    sites = devices[0][key] if devices else []
    leaks, freed = expected_sites(printout)
    found = {}
    for s in sites:
        found[(s.get("function"), os.path.basename(s.get("file") or ""), s.get("line"))] = \
            [s["count"], s["bytes"]]
    say(found == leaks, "%s: the sites are the program's leaking functions and lines, "
        "with their counts and bytes" % key, "report %r, program %r" % (found, leaks))
    named = {function for function, _, _ in found}
    say(not (named & freed), "%s: no site names a function that freed its memory or failed" % key,
        repr(named & freed))
    for s in sites:
        stack = s.get("stack") or []
        at = [i for i, f in enumerate(stack) if f.get("function") == s.get("function")]
        say(bool(at) and not stack[at[0]]["folded"],
            "%s %s: the JSON stack holds the site's frame, not folded" % (key, s["site"]),
            repr(stack))
        if not at:
            continue
        inner = stack[:at[0]]
        say(bool(inner) and all(f["folded"] and os.path.basename(f["object"] or "")
                                .startswith(FOLDED) for f in inner),
            "%s %s: the frames inside it are CUDA's and CUPTI's, folded" % (key, s["site"]),
            repr(inner))
        say(any(f.get("function") == "main" for f in stack[at[0]:]),
            "%s %s: the stack goes on to main" % (key, s["site"]), repr(stack))


def failures(report, printout):
    """The report's failure sites and stacks against the program's "failed" lines."""
    with open(report) as f:
        doc = json.load(f)
    with open(printout) as out:
        failed = [line.split() for line in out if line.startswith("failed ")]
    want = {"%s (%s)" % (function, os.path.basename(where)): int(size)
            for _, function, where, size in failed}
    sites = doc["memory"].get("failure_sites", [])
    got = {s["site"]: s["requested_bytes"] for s in sites}
    say(got == want, "failure_sites: the failed allocation's function and line, "
        "with the bytes it asked for", "report %r, program %r" % (got, want))
    for fl in doc["memory"].get("failures", []):
        stack = fl.get("stack") or []
        names = [f.get("function") for f in stack if not f["folded"]]
        say(names[:1] == ["fail_here"] and "main" in names,
            "failure %s: its JSON stack starts in the program at fail_here, down to main"
            % fl["site"], repr(stack))


if sys.argv[3] == "failures":
    failures(sys.argv[1], sys.argv[2])
else:
    main()
