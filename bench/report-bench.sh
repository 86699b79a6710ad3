#!/bin/sh
# SPDX-License-Identifier: MIT
#
# report-bench.sh [EVENTS] - the analyzers against Babeltrace itself, in one
# run, on the same synthetic traces (tests/analyzers/make-ctf.py: calls
# that allocate and free with a bounded live set):
#   - time: `cudatrace report` (all analyses, one pass) over
#     `babeltrace2 -o dummy` on a trace of EVENTS events (default 10
#     million); target 1.3 at most;
#   - memory: the report's peak RSS on that trace over its peak RSS on a
#     trace a tenth as long; target 1.2 at most (memory follows live
#     allocations, not trace length).
# Each command runs three times; the medians are compared. Prints ratios,
# asserts nothing.
set -eu

events=${1:-10000000}
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${TOP_SRCDIR:-$here/..}
builddir=${TOP_BUILDDIR:-$top_srcdir}
cudatrace=${CUDATRACE:-$builddir/cli/cudatrace}
python=${PYTHON3:-python3}
# make-ctf.py lays its events out as the event contract says (tools/ct_contract.py)
PYTHONPATH=$builddir/tools${PYTHONPATH:+:$PYTHONPATH}
export PYTHONPATH
work=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

[ -x "$cudatrace" ] || { echo "report-bench: $cudatrace is not built" >&2; exit 2; }
command -v babeltrace2 >/dev/null || { echo "report-bench: babeltrace2 is not installed" >&2; exit 2; }

small=$((events / 10))
echo "report-bench: writing traces of $events and $small events"
"$python" "$top_srcdir/tests/analyzers/make-ctf.py" bench "$events" "$work/large" >/dev/null
"$python" "$top_srcdir/tests/analyzers/make-ctf.py" bench "$small" "$work/small" >/dev/null

# median3 "CMD...": the median of three runs' "seconds kilobytes".
median3() {
	for run in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$work/time.$run" "$@" >/dev/null 2>&1
	done
	cat "$work/time.1" "$work/time.2" "$work/time.3" | sort -n | sed -n 2p
}

dummy=$(median3 babeltrace2 -o dummy "$work/large")
report=$(median3 "$cudatrace" report --format json "$work/large")
report_small=$(median3 "$cudatrace" report --format json "$work/small")

echo "$dummy $report $report_small" | awk -v n="$events" '{
	printf "babeltrace2 -o dummy:      %6.2f s  %7d KB  (%d events)\n", $1, $2, n
	printf "cudatrace report (all):    %6.2f s  %7d KB\n", $3, $4
	printf "cudatrace report, 1/10:    %6.2f s  %7d KB\n", $5, $6
	printf "time   report / dummy:        %.2f  (target <= 1.3)\n", $3 / $1
	printf "memory 10x events / 1x:       %.2f  (target <= 1.2)\n", $4 / $6
}'
