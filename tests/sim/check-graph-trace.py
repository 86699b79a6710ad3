#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-graph-trace.py - the work of graph launches in a cudatrace trace.

    check-graph-trace.py --ledger LEDGER --trace EVENTS

Each ledger line with graph= (a kernel, copy or memset replayed by a graph
launch, tests/cudasim/README.md) must be exactly one gpu_kernel, gpu_memcpy
or gpu_memset event of the trace with the ledger's correlation id (that of
the cudaGraphLaunch call), size and GPU start and end; and the trace has
that launch call: its api_entry and its graph_launch event. Prints TAP.
"""

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tracecheck import Tap, load_events, load_ledger, number  # noqa: E402

GPU_EVENT = {"launch": "gpu_kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset"}
TOLERANCE_NS = 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ledger", required=True)
    parser.add_argument("--trace", required=True)
    args = parser.parse_args()
    tap = Tap()
    ledger = [op for op in load_ledger(args.ledger) if "graph" in op]
    events = load_events(args.trace)
    tap.ok(len(ledger) > 0, "the ledger has graph-launched work (%d lines)" % len(ledger))
    by_corr = collections.defaultdict(list)
    for e in events:
        name = e.get("_name")
        if name in GPU_EVENT.values():
            by_corr[(name, number(e.get("correlation_id")))].append(e)
    corrs = {number(e.get("correlation_id")) for e in events if e.get("_name") == "api_entry"}
    launched = {number(e.get("correlation_id")) for e in events
                if e.get("_name") == "graph_launch"}
    missing, wrong = [], []
    for op in ledger:
        corr = number(op.get("corr"))
        candidates = by_corr.get((GPU_EVENT[op["op"]], corr), [])
        start, end = number(op.get("gpu_start")), number(op.get("gpu_end"))
        match = None
        for e in candidates:
            if (abs(number(e.get("start")) - start) <= TOLERANCE_NS
                    and abs(number(e.get("end")) - end) <= TOLERANCE_NS):
                match = e
                break
        if match is None:
            missing.append("%s corr=%s graph=%s node=%s" %
                           (op["op"], corr, op.get("graph"), op.get("node")))
            continue
        candidates.remove(match)
        size = op.get("bytes")
        if size is not None and number(match.get("bytes")) != number(size):
            wrong.append("%s node=%s: %s bytes, ledger %s" %
                         (op["op"], op.get("node"), match.get("bytes"), size))
    tap.ok(not missing, "every graph-launched kernel, copy and memset is one GPU event with "
           "the launch's correlation id and the ledger's GPU times", missing)
    tap.ok(not wrong, "their sizes are the ledger's", wrong)
    launches = {number(op.get("corr")) for op in ledger}
    tap.ok(launches <= corrs, "the trace has the API call of each graph launch",
           ["missing correlation ids: %s" % sorted(launches - corrs)])
    tap.ok(launches <= launched, "the trace has the graph_launch event of each graph launch",
           ["missing correlation ids: %s" % sorted(launches - launched)])
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
