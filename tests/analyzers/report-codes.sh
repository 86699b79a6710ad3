#!/bin/sh
# SPDX-License-Identifier: MIT
#
# An architecture verdict only on evidence (make-ctf.py codes): a
# library whose .nv_fatbin holds no code for the device (libcufft keeps
# one sm_75 cubin there and its real code in .ldata) is no failure in a
# process that never launched a kernel of it; once a launch fails with
# cudaErrorNoKernelImageForDevice, the library is named with both
# architectures.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
trace="$report_tmp/codes"
"$report_python" "$report_here/make-ctf.py" codes "$trace" >"$report_tmp/truth.json" ||
	tap_fail_all "make-ctf.py makes the trace of a library without code for the device"

report_run json --format=json "$trace"
report_exits json 0
report_run unused --pid=5001 "$trace"
report_exits unused 0
report_run failed --pid=5002 "$trace"
report_exits failed 0

"$report_python" - "$report_tmp" >"$report_tmp/check.tap" 2>&1 <<'PY'
import json
import sys

tmp = sys.argv[1]
truth = json.load(open(tmp + "/truth.json"))
report = json.load(open(tmp + "/json.out"))
n = 0


def say(cond, what, detail=""):
    global n
    n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, what))
    if not cond and detail:
        print("# " + str(detail)[:600])


env = {e["pid"]: e for e in report["environment"]}
ids = {pid: [f["id"] for f in e["findings"]] for pid, e in env.items()}
say("no-code-for-device" not in ids.get(truth["unused"], []),
    "JSON: no verdict for the library of a process that never failed for it", ids)
say("no-code-for-device" in ids.get(truth["failed"], []),
    "JSON: the verdict once a launch failed for lack of device code", ids)
found = [f for f in env.get(truth["failed"], {}).get("findings", [])
         if f["id"] == "no-code-for-device"]
say(found and truth["library"] in found[0]["what"] and "sm_75" in found[0]["what"] and
    "8.0" in found[0]["what"], "JSON: it names the library and both architectures", found)
unused = open(tmp + "/unused.out").read()
failed = open(tmp + "/failed.out").read()
say("sm_75" not in unused.split("The main tables")[0],
    "text: the first page of the process that never failed says nothing of sm_75",
    unused[:800])
say("sm_75" in failed.split("The main tables")[0],
    "text: the first page of the process whose launch failed names sm_75", failed[:800])
print("1..%d" % n)
PY
tap_relay codes "$report_tmp/check.tap"
tap_done
