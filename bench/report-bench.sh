#!/bin/sh
# SPDX-License-Identifier: MIT
#
# report-bench.sh [EVENTS] - the analyzers against Babeltrace itself, in one
# run, on the same synthetic traces (bench-lib.sh):
#   - time: `cudatrace report` (all analyses, one pass) over
#     `babeltrace2 -o dummy` on a trace of EVENTS events (default 10
#     million); target 1.0 at most;
#   - memory: the report's peak RSS on that trace over its peak RSS on a
#     trace a tenth as long; target 1.2 at most (memory follows live
#     allocations, not trace length); beside it babeltrace2's own ratio
#     and the report's above babeltrace2's (bench_memory);
#   - time on the trace with GPU work (copies and kernels, their records
#     joined to their calls: bench_traces), against babeltrace2 on it.
# The cores measured on are printed (bench_cores).
# Each command runs three times; the medians are compared. Prints ratios,
# asserts nothing.
set -eu

. "$(cd "$(dirname "$0")" && pwd)/bench-lib.sh"
bench_traces

dummy=$(median3 babeltrace2 -o dummy "$work/large")
dummy_small=$(median3 babeltrace2 -o dummy "$work/small")
report=$(median3 "$cudatrace" report --format json "$work/large")
report_small=$(median3 "$cudatrace" report --format json "$work/small")
dummy_gpu=$(median3 babeltrace2 -o dummy "$work/gpu")
report_gpu=$(median3 "$cudatrace" report --format json "$work/gpu")

echo "$dummy $report $report_small $dummy_small $dummy_gpu $report_gpu" | awk -v n="$events" '{
	printf "babeltrace2 -o dummy:      %6.2f s  %7d KB  (%d events)\n", $1, $2, n
	printf "babeltrace2 -o dummy, 1/10:%6.2f s  %7d KB\n", $7, $8
	printf "cudatrace report (all):    %6.2f s  %7d KB\n", $3, $4
	printf "cudatrace report, 1/10:    %6.2f s  %7d KB\n", $5, $6
	printf "time   report / dummy:        %.2f  (target <= 1.0)\n", $3 / $1
	printf "with GPU work: babeltrace2 -o dummy %.2f s, cudatrace report %.2f s\n", $9, $11
	printf "time   report / dummy, GPU work: %.2f  (target <= 1.0)\n", $11 / $9
}'
set -- $dummy $report $report_small $dummy_small
bench_memory report "$4" "$6" "$2" "$8"
bench_cores
