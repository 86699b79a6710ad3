#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-first-page.py - compare the first page of `cudatrace report`
(`--brief`) with the simulator's ledger, as TAP lines.

  check-first-page.py LEDGER PAGE [--failure VERDICT ...]
                      [--growth RANGE [--growth-site SITE]] [--storm SITE]
                      [--nothing]
                      [--withheld VERDICT] [--html]

The page fits one screen (at most 24 lines of at most 100 characters),
and names each situation with its numbers, computed here from the ledger
(tests/cudasim/README.md):

  --failure VERDICT  the next failed allocation of the ledger, in time
                     order: a FAILED finding with its API, its size, its
                     device and the verdict in words, and why with the
                     ledger's free memory (out of memory), largest free
                     block (fragmented) or memory in use (held elsewhere)
  --growth RANGE     a WARNING that RANGE keeps the size of the
                     allocations still live at the end more per run, and
                     holds all of them at the end
  --growth-site SITE the WARNING says what it keeps was allocated at SITE
                     (the program's line, from the program's source)
  --storm SITE       an ADVICE finding at SITE with the count and bytes of
                     the ledger's small synchronous pageable uploads, and
                     the fix: fewer, larger copies
  --nothing          no finding at all
  --withheld VERDICT a failure whose verdict the trace cannot support
                     (a truth of make-ctf.py; LEDGER may be "-"): the
                     page gives no verdict as fact ("cause unknown"),
                     says its figures are uncertain, and names VERDICT
                     only as what the figures alone would say
  --html             PAGE is the first page of the HTML report as
                     check-html.py read it from the rendered page: each
                     finding its heading, then its parts indented; it has
                     no screen to fit but numbers every finding, in order,
                     and says what to do as "What to do:"
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import simcheck  # noqa: E402

# The verdicts, as the first page words them (doc/man/cudatrace-report.1).
VERDICT_WORDS = {
    "out_of_memory": "out of memory",
    "fragmented": "memory fragmented",
    "held_elsewhere": "memory held by other processes",
    "pool_cached": "memory kept cached by its own pools",
}
MAX_LINES = 24
MAX_COLUMNS = 100

tap = simcheck.Tap()


def fmt_bytes(n):
    """A size as the report writes it (doc/report-schema.md: 1024-based units)."""
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    u = 0
    v = float(n)
    while u + 1 < len(units) and abs(v) >= 1024:
        v /= 1024
        u += 1
    return f"{v:.0f} {units[u]}" if u == 0 else f"{v:.2f} {units[u]}"


def size_variants(n):
    """The ways a size can be written with 0 to 2 decimals: "20 MiB", "20.0 MiB", ..."""
    out = set()
    for unit, scale in (("B", 1), ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30)):
        v = n / scale
        if v >= 1:
            for d in (0, 1, 2):
                out.add(f"{v:.{d}f} {unit}")
    return out


def read_ledger(path):
    ops = []
    with open(path) as f:
        for line in f:
            ops.append(dict(item.split("=", 1) for item in line.split() if "=" in item))
    return ops


def findings(lines):
    """The findings of the page: (head line, its whole text joined, blanks folded)."""
    out = []
    for line in lines:
        if re.match(r"^\d+\. ", line):
            out.append([line])
        elif out and line.startswith(" "):
            out[-1].append(line)
    return [(f[0], re.sub(r"\s+", " ", " ".join(f))) for f in out]


# What a finding says to do starts with, on the text page; the HTML page's, with --html.
ADVICE = {"text": "Do:", "html": "What to do:"}
advice_label = ADVICE["text"]


def check_failure(n, verdict, failed, found):
    if n >= len(failed):
        tap.ok(False, f"failure {n + 1}: the ledger has it", f"{len(failed)} failures in the ledger")
        return
    want = failed[n]
    size = fmt_bytes(int(want["size"]))
    head = (f"{want['api']} of {size} failed on device {want['dev']}: "
            f"{VERDICT_WORDS[verdict]}")
    match = [text for line, text in found if "FAILED" in line and head in text]
    tap.ok(len(match) == 1, f"failure {n + 1}: FAILED {head}", *[line for line, _ in found])
    if not match:
        return
    text = match[0]
    free, total = int(want["free"]), int(want["total"])
    figure = {"out_of_memory": free,
              "fragmented": int(want.get("largest_free", free)),
              "held_elsewhere": total - free,
              "pool_cached": free}[verdict]
    tap.ok(any(v in text for v in size_variants(figure)),
       f"failure {n + 1}: why, with the {fmt_bytes(figure)} of the ledger", text)
    tap.ok(advice_label in text, f"failure {n + 1}: says what to do", text)


def check_growth(rng, site, ops, found):
    live = {}
    for op in ops:
        if op.get("op") == "alloc" and op.get("kind") == "device":
            live[op["addr"]] = int(op["size"])
        elif op.get("op") == "free":
            live.pop(op.get("addr"), None)
    sizes = list(live.values())
    if not sizes:
        tap.ok(False, "growth: the ledger has allocations live at the end")
        return
    step = max(set(sizes), key=sizes.count)
    runs = sizes.count(step)
    head = f"NVTX range {rng} keeps {fmt_bytes(step)} more device memory each time it runs"
    match = [text for line, text in found if "WARNING" in line and head in text]
    tap.ok(len(match) == 1, f"growth: WARNING {head}", *[line for line, _ in found])
    if match:
        tap.ok(f"{fmt_bytes(step * runs)} held at the end" in match[0] and
           f"of {runs} runs" in match[0],
           f"growth: {fmt_bytes(step * runs)} held at the end, {runs} runs", match[0])
    if match and site:
        tap.ok(f"allocated at {site} and never freed" in match[0],
               f"growth: what it keeps was allocated at {site}", match[0])


def check_storm(site, ops, found):
    small = [int(op["bytes"]) for op in ops
             if op.get("op") == "memcpy" and op.get("dir") == "HtoD" and
             op.get("host") == "pageable" and op.get("sync") == "1" and
             int(op["bytes"]) < 64 * 1024]
    head = (f"{site}: {len(small)} synchronous HtoD pageable copies "
            f"({fmt_bytes(sum(small))}) cost")
    match = [text for line, text in found if "ADVICE" in line and head in text]
    tap.ok(len(match) == 1, f"storm: ADVICE {head}", *[line for line, _ in found])
    if match:
        tap.ok(f"{advice_label} gather the data into fewer, larger copies" in match[0],
           "storm: the fix is fewer, larger copies", match[0])


def check_withheld(verdict, found):
    match = [text for line, text in found if "FAILED" in line and ": cause unknown" in line]
    tap.ok(len(match) == 1, "withheld: FAILED ... cause unknown, no verdict given as fact",
           *[line for line, _ in found])
    if match:
        tap.ok("Note: the figures are uncertain:" in match[0] and
               f"the figures alone would say {VERDICT_WORDS[verdict]}" in match[0],
               f"withheld: the figures are uncertain, {VERDICT_WORDS[verdict]} only what "
               "they alone would say", match[0])
    for word in VERDICT_WORDS.values():
        given = [line for line, _ in found if line.endswith(": " + word)]
        tap.ok(not given, f"withheld: no finding says {word!r} as fact", *given)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ledger")
    p.add_argument("page")
    p.add_argument("--failure", action="append", default=[], choices=sorted(VERDICT_WORDS))
    p.add_argument("--growth")
    p.add_argument("--growth-site")
    p.add_argument("--storm")
    p.add_argument("--nothing", action="store_true")
    p.add_argument("--withheld", choices=sorted(VERDICT_WORDS))
    p.add_argument("--html", action="store_true")
    args = p.parse_args()
    global advice_label
    advice_label = ADVICE["html" if args.html else "text"]
    ops = read_ledger(args.ledger) if args.ledger != "-" else []
    with open(args.page, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    found = findings(lines)
    if args.html:
        ranks = [int(line.split(".")[0]) for line, _ in found]
        tap.ok(lines and ranks == list(range(1, len(ranks) + 1)),
               "the page numbers its findings 1, 2, ... in order", *lines)
    else:
        tap.ok(0 < len(lines) <= MAX_LINES, f"the first page fits {MAX_LINES} lines",
               f"{len(lines)} lines")
        wide = [line for line in lines if len(line) > MAX_COLUMNS]
        tap.ok(not wide, f"its lines fit {MAX_COLUMNS} columns", *wide)
    failed = [op for op in ops if op.get("op") == "alloc_failed"]
    for n, verdict in enumerate(args.failure):
        check_failure(n, verdict, failed, found)
    if args.growth:
        check_growth(args.growth, args.growth_site, ops, found)
    if args.storm:
        check_storm(args.storm, ops, found)
    if args.withheld:
        check_withheld(args.withheld, found)
    if args.nothing:
        tap.ok(not found and any(line.startswith("Nothing found") for line in lines),
           "no finding, and the page says so", *lines)
    tap.done()
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
