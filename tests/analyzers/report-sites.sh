#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Sites in the user's terms, on a trace whose truth is known
# (make-ctf.py sites): leaks made from Python through an extension
# module are charged to the program's Python lines, in the text report
# and the JSON, never to the extension's object or the bindings' Python
# wrapper, whose frames are folded under the program's line; two leaks
# alike but for that line stay two sites; the code of a notebook cell is
# named as Jupyter shows it, In [N] line L, not by the file IPython
# compiled it under; allocations through the program's own wrapper,
# called from two lines, are charged to those lines, so that the freed
# one and the leaked one stay apart; what PyTorch's autograd thread, which
# runs no Python, allocates while the main thread waits in backward() is
# charged to the line that called it, and only then.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
trace="$report_tmp/sites"
"$report_python" "$report_here/make-ctf.py" sites "$trace" >"$report_tmp/truth.json" ||
	tap_fail_all "make-ctf.py makes the trace of leaks from Python"

report_run text "$trace"
report_exits text 0
report_run json --format=json "$trace"
report_exits json 0

"$report_python" - "$report_tmp/truth.json" "$report_tmp/json.out" "$report_tmp/text.out" \
	>"$report_tmp/check.tap" 2>&1 <<'PY'
import json
import sys

truth = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
n = 0


def say(cond, what, detail=""):
    global n
    n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, what))
    if not cond and detail:
        for line in str(detail).splitlines()[:20]:
            print("# " + line)


devices = [d for d in report["memory"]["devices"] if d["pid"] == truth["pid"]]
say(len(devices) == 1, "the report has the process's device",
    [d["pid"] for d in report["memory"]["devices"]])
leak_sites = [s for d in devices for s in d.get("leak_sites", [])]
by_site = {s["site"]: s for s in leak_sites}
for want in truth["sites"]:
    got = by_site.get(want["site"])
    say(got is not None and got["bytes"] == want["bytes"],
        "JSON: %s holds its leak, %d bytes" % (want["site"], want["bytes"]),
        [(s["site"], s["bytes"]) for s in leak_sites])
    say(want["site"] in text, "text: the leak is charged to %s" % want["site"])
    if got is None or want.get("native"):
        continue
    stack = got.get("stack") or []
    at = [i for i, f in enumerate(stack) if f.get("python") and not f["folded"]]
    say(bool(at) and all(f["folded"] for f in stack[:at[0]]),
        "JSON: %s: every frame inside the Python line is folded" % want["site"], stack)
say(len(leak_sites) == len(truth["sites"]), "one site per Python line",
    [s["site"] for s in leak_sites])
say("gpu.py:65" not in text, "text: the wrapper called from two lines is not a site")
say("cyruntime" not in text and "runtime.py" not in text,
    "text: neither the extension's object nor the bindings' wrapper is named")
say(not [s for s in leak_sites if "ipykernel_" in s["site"]],
    "JSON: no site is named by the file IPython compiled a cell under",
    [s["site"] for s in leak_sites])
print("1..%d" % n)
PY
tap_relay sites "$report_tmp/check.tap"
tap_done
