#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""environment-entry.py REPORT PID EXPRESSION: prints a Python expression
over the environment[] entry of process PID in the JSON report REPORT
(doc/report-schema.md): p is the entry, f its findings by id (id -> list
of "what"). Fails when the report has no entry for PID."""
import json
import sys


def main():
    path, pid, expression = sys.argv[1:4]
    with open(path, encoding="utf-8") as report:
        environment = json.load(report)["environment"]
    entries = [e for e in environment if str(e["pid"]) == pid]
    if not entries:
        sys.exit(f"{path}: no environment entry for pid {pid}")
    p = entries[0]
    f = {}
    for finding in p["findings"]:
        f.setdefault(finding["id"], []).append(finding["what"])
    print(eval(expression, {}, {"p": p, "f": f}))  # pylint: disable=eval-used


main()
