#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-cells.py - the memory `cudatrace report` and the post-mortem of a
killed Jupyter kernel charge to its cells, against the truth, as TAP lines.

  check-cells.py CELLS.json LEDGER REPORT.json POSTMORTEM.txt

CELLS.json is what jupyter-cells-driver.py saw each cell do (its execution
count as the kernel answered it, its source, the device pointers it
printed as allocated and freed); the simulator's ledger (LEDGER, the
kernel's lines) gives the size of every allocation and says which were
freed. From them, per cell: what it allocated, what of that was freed (in
any later cell) and what was live when the kernel died; the report's
`cells[]` and the post-mortem's "In [N] holds ..." lines must say the same,
and each allocation live at the end is charged to the cell's line that
made it, "In [N] line L" as Jupyter shows the cell (its Python frames
carry the file IPython compiled the cell under).
"""
import importlib.util
import json
import os
import re
import sys

_spec = importlib.util.spec_from_file_location(
    "check_memory_report",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzers",
                 "check-memory-report.py"))
memory_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(memory_report)
ok = memory_report.ok

MIB = 1 << 20


def ledger_memory(path, pid):
    """PID's allocations in the order the simulator made them, each a dict
    with address, size and freed (whether a later free released it)."""
    allocations, live = [], {}
    with open(path) as f:
        for line in f:
            fields = dict(w.split("=", 1) for w in line.split() if "=" in w)
            if fields.get("pid") != str(pid):
                continue
            if fields.get("op") == "alloc":
                a = {"address": int(fields["addr"], 16), "size": int(fields["size"]),
                     "freed": False}
                allocations.append(a)
                live[a["address"]] = a
            elif fields.get("op") == "free" and int(fields["addr"], 16) in live:
                live.pop(int(fields["addr"], 16))["freed"] = True
    return allocations


def first_line(source):
    for number, text in enumerate(source.splitlines(), 1):
        if text.strip():
            return number, text.strip()
    return 0, ""


def figures(allocations):
    return {
        "allocations": len(allocations),
        "allocated_bytes": sum(a["size"] for a in allocations),
        "freed_bytes": sum(a["size"] for a in allocations if a["freed"]),
        "live_allocations": sum(1 for a in allocations if not a["freed"]),
        "live_bytes": sum(a["size"] for a in allocations if not a["freed"]),
    }


def split(cells, allocations):
    """The ledger's allocations of each cell (those it printed, in their
    order), and the others: made while no cell ran."""
    printed = [(c["count"], a, s) for c in cells for a, s in c["allocated"]]
    mine, outside = {c["count"]: [] for c in cells}, []
    for a in allocations:
        if printed and (a["address"], a["size"]) == printed[0][1:]:
            mine[printed.pop(0)[0]].append(a)
        else:
            outside.append(a)
    return mine, outside, printed


def truth(cells, mine):
    """Per execution count: line, first_line, status and the figures."""
    expected = {}
    for cell in cells:
        line, text = first_line(cell["source"])
        expected[cell["count"]] = dict(line=line, first_line=text, status=cell["status"],
                                       **figures(mine[cell["count"]]))
    return expected


def alloc_lines(source, count):
    """The line of each of COUNT allocations a cell made, from its source:
    the lines that call alloc(), in order (one line makes them all when it
    is the only one, as a list comprehension does)."""
    lines = [n for n, text in enumerate(source.splitlines(), 1) if "alloc(" in text]
    if len(lines) == 1:
        return lines * count
    return lines[:count] if len(lines) >= count else None


def check_sites(cells, mine, report, pid):
    """Each allocation a cell left live is charged to its line, In [N] line L."""
    leaks = {a["address"]: a for d in report["memory"]["devices"] if d["pid"] == pid
             for a in d.get("leaks", [])}
    for cell in cells:
        lines = alloc_lines(cell["source"], len(mine[cell["count"]]))
        if lines is None:
            continue
        for a, line in zip(mine[cell["count"]], lines):
            if a["freed"]:
                continue
            got = leaks.get(a["address"], {}).get("site", "")
            want = "In [%d] line %d" % (cell["count"], line)
            ok(got == want or got.startswith(want + " in "),
               "the leak at %#x is charged to %s" % (a["address"], want), "site: %r" % got)


def check_errors(cells, rows, report):
    """A cell that raised: its exception's type, text and line in the cell
    (the line of its source that raises) in its row, and a cell_error
    finding that names them, In [N] line L."""
    for cell in cells:
        if not cell.get("error"):
            continue
        ename, evalue = cell["error"]
        line = next((n for n, text in enumerate(cell["source"].splitlines(), 1)
                     if text.startswith("raise ")), 0)
        row = rows.get(cell["count"], {})
        got = [row.get(k) for k in ("error_type", "error_message", "error_line", "site")]
        site = "In [%d] line %d" % (cell["count"], line)
        ok(got == [ename, evalue, line, site],
           "In [%d]: its row has the exception the kernel reported, at line %d"
           % (cell["count"], line), "report: %s" % got, "kernel: %s" % cell["error"])
        said = [f for f in report["findings"] if f["kind"] == "cell_error"
                and f["where"]["site"] == site]
        ok(len(said) == 1 and said[0]["summary"].startswith("%s raised %s: %s"
                                                           % (site, ename, evalue)),
           "In [%d]: a cell_error finding names it" % cell["count"],
           [f["summary"] for f in report["findings"]])


def main():
    cells_path, ledger_path, report_path, postmortem_path = sys.argv[1:5]
    with open(cells_path) as f:
        run = json.load(f)
    with open(report_path) as f:
        report = json.load(f)
    with open(postmortem_path) as f:
        postmortem = f.read()
    pid = run["kernel_pids"][0] if len(run["kernel_pids"]) == 1 else None
    ok(pid is not None, "the kernel was the one child of cudatrace record", run["kernel_pids"])
    allocations = ledger_memory(ledger_path, pid)
    cells = run["cells"]

    # The cells' printout and the simulator agree: the cells' allocations
    # are the ledger's, in their order, at the addresses and of the sizes
    # the cells printed, and each free they printed released one. The one
    # other allocation is the quiet thread's.
    mine, outside, unmatched = split(cells, allocations)
    ok(not unmatched, "the ledger has the allocations the cells printed, in their order",
       "not in the ledger: %s" % unmatched, "ledger: %s" % allocations)
    ok([a["size"] for a in outside] == [(3 << 20) + 512],
       "and the one the thread made between cells", outside)
    ok(sum(len(c["freed"]) for c in cells) == sum(a["freed"] for a in allocations),
       "the ledger has the frees the cells printed")
    ok([c["count"] for c in cells] == list(range(1, len(cells) + 1)),
       "the kernel numbered the cells In [1] to In [%d]" % len(cells),
       [c["count"] for c in cells])
    expected = truth(cells, mine)
    check_sites(cells, mine, report, pid)

    processes = [p for p in report.get("cells", []) if p["pid"] == pid]
    ok(len(processes) == 1, "the report has the kernel's cells", report.get("cells"))
    if not processes:
        return
    process = processes[0]
    ok(process["cell_count"] == len(cells), "it counts the %d cells run" % len(cells),
       process["cell_count"])
    rows = {row["cell"]: row for row in process["cells"]}
    for count, want in sorted(expected.items()):
        row = rows.get(count)
        got = {k: row[k] for k in want} if row else None
        ok(got == want, "In [%d]: %s, %d allocated, %d freed, %d live in %d allocations"
           % (count, want["status"], want["allocated_bytes"], want["freed_bytes"],
              want["live_bytes"], want["live_allocations"]),
           "report: %s" % got, "truth:  %s" % want)
    check_errors(cells, rows, report)
    order = [row["cell"] for row in process["cells"]]
    ok(order == sorted(expected, key=lambda n: (-expected[n]["live_bytes"],
                                                -expected[n]["allocated_bytes"], n)),
       "the cells are listed most live bytes first", order)
    ok(process["outside_cells"] == figures(outside),
       "the memory allocated outside cells is the thread's",
       "report: %s" % process["outside_cells"], "truth:  %s" % figures(outside))

    # The post-mortem names every cell that held memory, with the truth's figures.
    held = {int(m.group(1)): m for m in re.finditer(
        r"^ *In \[(\d+)\] holds ([0-9.]+) MiB in (\d+) allocations?, from line (\d+): (.*)$",
        postmortem, re.M)}
    holding = {n: w for n, w in expected.items() if w["live_bytes"]}
    ok(sorted(held) == sorted(holding), "the post-mortem names the cells that held memory",
       "named: %s" % sorted(held), "truth: %s" % sorted(holding))
    for count, want in sorted(holding.items()):
        m = held.get(count)
        got = (float(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5)) if m else None
        ok(got == (round(want["live_bytes"] / MIB, 2), want["live_allocations"], want["line"],
                   want["first_line"]),
           "post-mortem: In [%d] holds %d bytes in %d allocations, from line %d"
           % (count, want["live_bytes"], want["live_allocations"], want["line"]),
           "post-mortem: %s" % (m.group(0) if m else None))
    want = figures(outside)
    m = re.search(r"^ *Allocated outside notebook cells .*: ([0-9.]+) MiB live in (\d+) "
                  r"allocations?$", postmortem, re.M)
    ok(m and (float(m.group(1)), int(m.group(2))) == (round(want["live_bytes"] / MIB, 2),
                                                       want["live_allocations"]),
       "post-mortem: what was allocated outside cells",
       "post-mortem: %s" % (m.group(0) if m else None))


if __name__ == "__main__":
    main()
    print("1..%d" % memory_report.tests)
    sys.exit(1 if memory_report.failures else 0)
