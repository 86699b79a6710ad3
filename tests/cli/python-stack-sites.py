#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""python-stack-sites.py REPORT.json PROGRAM.py ROUNDS THREAD_RUN - the sites
of a report of tests/cli/python-leaks.py against the program's own source:
each allocating line there ends with "# site of FUNCTION", so the line
the report must name is found in the file, not in an earlier output.
THREAD_RUN is what the traced interpreter names threading.Thread.run's
code (co_qualname, "Thread.run", from 3.11; co_name, "run", before).

Prints one line per check, "ok DESCRIPTION" or "not ok DESCRIPTION: why",
for tests/cli/record-python-stacks.sh to count.
"""
import json
import os
import re
import sys

MIB = 1 << 20
# what the interpreter, ctypes and CUDA put inside the Python line
FOLDED = ("libcuda.so", "libcudart.so", "libcupti.so", "libcudatrace.so", "libffi.so",
          "_ctypes.", "libpython", "python3")


def say(passed, description, why=""):
    print("%s %s%s" % ("ok" if passed else "not ok", description,
                       "" if passed else ": " + why))


def source_lines(path):
    """{function: line} of the program's allocating lines."""
    lines = {}
    with open(path) as src:
        for number, text in enumerate(src, 1):
            found = re.search(r"# site of (\w+)$", text.rstrip())
            if found:
                lines[found.group(1)] = number
    return lines


def check_stack(key, site, stack, function, program, thread_run):
    """The site's frame is the Python one, the frames inside it folded."""
    at = [i for i, f in enumerate(stack) if f.get("python") and f.get("function") == function]
    say(bool(at) and not stack[at[0]]["folded"],
        "%s %s: the JSON stack holds the Python frame, not folded" % (key, site), repr(stack))
    if not at:
        return
    inner = stack[:at[0]]
    say(bool(inner) and all(f["folded"] and not f["python"] and
                            os.path.basename(f["object"] or "").startswith(FOLDED)
                            for f in inner),
        "%s %s: the frames inside it are CUDA's, ctypes' and the interpreter's, folded"
        % (key, site), repr(inner))
    outer = [f for f in stack[at[0] + 1:] if f.get("python")]
    callers = {"leak_here": "main", "fail_here": "main", "thread_leak": thread_run}
    say(any(f["function"] == callers[function] for f in outer) and
        (function == "thread_leak" or outer[-1]["function"] == "<module>") and
        all(os.path.basename(f["file"]) == os.path.basename(program)
            for f in outer if f["function"] in ("main", "<module>")),
        "%s %s: its Python callers follow, from %s" % (key, site, callers[function]),
        repr(outer))
    native = [i for i, f in enumerate(stack) if not f.get("python")]
    say(any(i > at[0] for i in native),
        "%s %s: the interpreter's native frames follow the Python ones" % (key, site),
        repr(stack))


def main():
    report, program, rounds, thread_run = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    with open(report) as f:
        doc = json.load(f)
    lines = source_lines(program)
    name = os.path.basename(program)
    memory = doc["memory"]
    sites = memory["devices"][0]["leak_sites"] if memory["devices"] else []
    want = {("%s:%d in %s" % (name, lines["leak_here"], "leak_here")): [rounds, rounds * MIB],
            ("%s:%d in %s" % (name, lines["thread_leak"], "thread_leak")): [1, 3 * MIB]}
    got = {s["site"]: [s["count"], s["bytes"]] for s in sites}
    say(got == want, "leak_sites: the leaking Python lines and functions, with counts and bytes",
        "report %r, program %r" % (got, want))
    for s in sites:
        function = s.get("function")
        say(function in lines and s.get("line") == lines[function] and
            os.path.basename(s.get("file") or "") == name,
            "leak_sites %s: function, file and line are the source's" % s["site"], repr(s))
        if function in lines:
            check_stack("leak_sites", s["site"], s.get("stack") or [], function, program,
                        thread_run)
    say(not any("freed_here" in s["site"] for s in sites),
        "leak_sites: no site names the function that freed its memory", repr(sites))
    failures = memory.get("failure_sites", [])
    want = {"%s:%d in fail_here" % (name, lines["fail_here"]): 1 << 44}
    got = {s["site"]: s["requested_bytes"] for s in failures}
    say(got == want, "failure_sites: the failed allocation's Python line",
        "report %r, program %r" % (got, want))
    for fl in memory.get("failures", []):
        check_stack("failures", fl["site"], fl.get("stack") or [], "fail_here", program,
                    thread_run)


main()
