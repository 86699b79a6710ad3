#!/bin/sh
# SPDX-License-Identifier: MIT
#
# graphs.sh - run programs/rt-graphs (stream capture, graphs, host
# functions) on the simulator, relay its TAP, and check its ledger: the
# work of graph launches carries the launch call, its correlation id and
# graph= node=; every host function starts after the GPU end of the work
# before it on its stream, and the work after it starts after it returned.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_require_python
sim_program rt-graphs
program=$sim_path
sim_tmpdir

sim_run "$sim_tmp/out" "$sim_tmp/err" CUDASIM_LEDGER="$sim_tmp/ledger" "$program"
tap_relay rt-graphs "$sim_tmp/out"
sim_check_status rt-graphs

"$PYTHON3" - "$sim_tmp/ledger" >"$sim_tmp/check" 2>&1 <<'PY'
import sys
sys.path.insert(0, __import__("os").environ["TESTS_SRCDIR"] + "/lib")
import simcheck
tap = simcheck.Tap()
ops = [e for e in simcheck.read_kv_file(sys.argv[1]) if "_bad" not in e]
num = simcheck.to_int
graph = [e for e in ops if "graph" in e]
tap.ok(len(graph) == 2 * 6 + 3,
       "graph launches replayed 15 kernels, copies and memsets (%d)" % len(graph))
tap.ok(all(e["api"] == "cudaGraphLaunch" and "node" in e for e in graph),
       "each names cudaGraphLaunch and its node")
corrs = sorted({num(e["corr"]) for e in graph})
tap.ok(len(corrs) == 3, "they carry the correlation ids of the 3 launches (%s)" % corrs)
hosts = [e for e in ops if e["op"] == "host_func"]
tap.ok(len(hosts) == 5, "5 host functions ran (%d)" % len(hosts))
bad = []
for h in hosts:
    before = [e for e in ops if num(e["seq"]) < num(h["seq"]) and e.get("stream") == h["stream"]
              and "gpu_end" in e]
    if before and num(h["start"]) < max(num(e["gpu_end"]) for e in before):
        bad.append("host_func seq=%s starts before the work before it ends" % h["seq"])
    after = [e for e in ops if num(e["seq"]) > num(h["seq"]) and e.get("stream") == h["stream"]
             and "gpu_start" in e and num(e["corr"]) > num(h["corr"])]
    if after and num(after[0]["gpu_start"]) < num(h["end"]):
        bad.append("seq=%s starts before host_func seq=%s returned" % (after[0]["seq"], h["seq"]))
tap.ok(not bad, "host functions run in stream order", *bad)
tap.done()
PY
tap_relay ledger "$sim_tmp/check"
tap_done
