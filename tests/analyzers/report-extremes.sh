#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Values at the ends of their types' ranges, as a corrupt trace can hold
# them (make-ctf.py's "extremes" traces: sizes of 2^64 - 1, deltas of
# -2^63, GPU intervals that end before they start or at 2^64 - 1, NVML
# readings with more free memory than there is, times that jump by 2^40
# ns): a report every time, with no negative byte count or duration,
# never a crash nor an overflow (in a sanitizer build,
# UndefinedBehaviorSanitizer aborts on a signed overflow, which fails the
# run).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
	trace="$report_tmp/extremes-$seed"
	"$report_python" "$report_here/make-ctf.py" extremes "$seed" "$trace" ||
		tap_fail_all "make-ctf.py makes the trace of extreme values"
	report_run "json-$seed" --format=json "$trace"
	report_exits "json-$seed" 0
	report_run "text-$seed" --plot="$report_tmp/plots-$seed" "$trace"
	report_exits "text-$seed" 0
	"$report_python" - "$report_tmp/json-$seed.out" "$seed" >"$report_tmp/check-$seed.tap" <<'EOF'
import json
import sys

report = json.load(open(sys.argv[1]))
bad = []


def walk(node, path):
    if isinstance(node, dict):
        for key, value in node.items():
            walk(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            walk(value, f"{path}[{i}]")
    elif isinstance(node, int) and not isinstance(node, bool):
        last = path.rsplit(".", 1)[-1]
        if last.endswith("_bytes") or last.endswith("_ns"):
            if not 0 <= node <= 2**64 - 1:
                bad.append(f"{path} = {node}")


walk(report.get("memory", {}), "memory")
walk(report.get("transfers", {}), "transfers")
ok = not bad
print(f"{'ok' if ok else 'not ok'} 1 - seed {sys.argv[2]}: no negative byte count, time or duration")
for b in bad[:5]:
    print(f"# {b}")
print("1..1")
EOF
	tap_relay "extremes" "$report_tmp/check-$seed.tap"
done
tap_done
