#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Strings that come from the traced program (process, API, kernel and
# device names, NVTX messages) through `cudatrace report`: an empty NVTX
# message pushed after a non-empty one stays empty (make-ctf.py's
# "strings" trace, which writes them as LTTng does: text sequences).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
trace="$report_tmp/strings"
"$report_python" "$report_here/make-ctf.py" strings "$trace" >"$report_tmp/truth.json" ||
	tap_fail_all "make-ctf.py makes the trace of hostile strings"

report_run json --format=json "$trace"
report_exits json 0
report_run csv --format=csv "$trace"
report_exits csv 0
report_run text "$trace"
report_exits text 0

# The leak of the process whose innermost range has an empty message.
empty_path=$("$report_python" - "$report_tmp/json.out" "$report_tmp/truth.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1], encoding="utf-8", errors="replace"))
truth = json.load(open(sys.argv[2]))
for d in report["memory"]["devices"]:
    if d["pid"] == truth["empty_pid"]:
        print(d["leaks"][0]["nvtx_path"])
EOF
)
is "json: an empty NVTX message stays empty" "$empty_path" "outer/"
ok "csv: an empty NVTX message stays empty" grep -q "^4444,0,outer/:cudaMalloc," "$report_tmp/csv.out"
ok "text: an empty NVTX message stays empty" grep -q "outer/:cudaMalloc" "$report_tmp/text.out"
tap_done
