#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-cells-perfetto.py - the notebook cells in `cudatrace export
--format perfetto` of a killed Jupyter kernel's trace, decoded with
Perfetto's own protos (check-perfetto.py's Export), against what the
kernel ran (jupyter-cells-driver.py's CELLS.json), as TAP lines.

  check-cells-perfetto.py EXPORT.pftrace CELLS.json

One "Notebook cells" track under the kernel's process track; on it, a
slice "In [N]: first line" for each cell that ended, in order, each after
the one before; the last cell, running when the kernel died, left open.
"""
import importlib.util
import json
import os
import sys

_spec = importlib.util.spec_from_file_location(
    "check_perfetto",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzers",
                 "check-perfetto.py"))
check_perfetto = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_perfetto)
ok = check_perfetto.ok


def first_line(source):
    for text in source.splitlines():
        if text.strip():
            return text.strip()
    return ""


def main():
    export = check_perfetto.Export(sys.argv[1])
    with open(sys.argv[2]) as f:
        run = json.load(f)
    pid = run["kernel_pids"][0]
    tracks = [t for t in export.tracks.values() if t.name == "Notebook cells"]
    ok(len(tracks) == 1, "one track of notebook cells", [t.name for t in export.tracks.values()])
    if not tracks:
        return
    parent = export.tracks.get(tracks[0].parent_uuid)
    ok(parent is not None and parent.process.pid == pid, "under the kernel's process track",
       parent)
    slices = export.slices[tracks[0].uuid]
    ended = [c for c in run["cells"] if c["status"] != "running"]
    want = ["In [%d]: %s" % (c["count"], first_line(c["source"])) for c in ended]
    ok([s[0] for s in slices] == want, "a slice per cell that ended, named In [N] and its line",
       "export: %s" % [s[0] for s in slices], "truth:  %s" % want)
    ok(all(a[2] <= b[1] for a, b in zip(slices, slices[1:])) and
       all(s[1] <= s[2] for s in slices), "each after the one before")


if __name__ == "__main__":
    main()
    print("1..%d" % check_perfetto.memory_report.tests)
    sys.exit(1 if check_perfetto.memory_report.failures else 0)
