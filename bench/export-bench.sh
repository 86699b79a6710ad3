#!/bin/sh
# SPDX-License-Identifier: MIT
#
# export-bench.sh [EVENTS] - `cudatrace export --format perfetto` against
# Babeltrace itself, in one run, on the same synthetic traces
# (bench-lib.sh):
#   - time: the export over `babeltrace2 -o dummy` on a trace of EVENTS
#     events (default 10 million);
#   - memory: the export's peak RSS on that trace over its peak RSS on a
#     trace a tenth as long; target 1.2 at most (packets are written as
#     events are read: memory follows tracks and live allocations, not
#     trace length); beside it babeltrace2's own ratio and the
#     export's above babeltrace2's (bench_memory);
#   - the size of the Perfetto file per event;
#   - on the trace with GPU work (bench_traces), the time of both exports,
#     `--format perfetto` and `--format ctf` (the GPU-time trace), over
#     babeltrace2's on it;
#   - the GPU-time CTF export's peak RSS on that trace over its peak RSS on
#     one a tenth as long (a second trace with GPU work); target 1.2 at
#     most: both exports read as `cudatrace report` does (stream files
#     decoded in parallel), and the CTF export writes on a thread of its
#     own as the reading goes, its reorder queue bounded, so memory follows
#     the operations in flight, not the trace's length.
# The cores measured on are printed (bench_cores).
# Each command runs three times; the medians are compared. Prints ratios,
# asserts nothing.
set -eu

. "$(cd "$(dirname "$0")" && pwd)/bench-lib.sh"
bench_traces
"$python" "$top_srcdir/tests/analyzers/make-ctf.py" bench-gpu "$small" "$work/gpu-small" >/dev/null

dummy=$(median3 babeltrace2 -o dummy "$work/large")
dummy_small=$(median3 babeltrace2 -o dummy "$work/small")
export=$(median3 --fresh "$work/large.pftrace" \
	"$cudatrace" export --format perfetto -o "$work/large.pftrace" "$work/large")
export_small=$(median3 --fresh "$work/small.pftrace" \
	"$cudatrace" export --format perfetto -o "$work/small.pftrace" "$work/small")
bytes=$(wc -c <"$work/large.pftrace")
dummy_gpu=$(median3 babeltrace2 -o dummy "$work/gpu")
perfetto_gpu=$(median3 --fresh "$work/gpu.pftrace" \
	"$cudatrace" export --format perfetto -o "$work/gpu.pftrace" "$work/gpu")
ctf_gpu=$(median3 --fresh "$work/gpu-ctf" \
	"$cudatrace" export --format ctf -o "$work/gpu-ctf" "$work/gpu")
dummy_gpu_small=$(median3 babeltrace2 -o dummy "$work/gpu-small")
ctf_gpu_small=$(median3 --fresh "$work/gpu-small-ctf" \
	"$cudatrace" export --format ctf -o "$work/gpu-small-ctf" "$work/gpu-small")

echo "$dummy $export $export_small $bytes $dummy_small $dummy_gpu $perfetto_gpu $ctf_gpu" |
	awk -v n="$events" '{
	printf "babeltrace2 -o dummy:        %6.2f s  %7d KB  (%d events)\n", $1, $2, n
	printf "babeltrace2 -o dummy, 1/10:  %6.2f s  %7d KB\n", $8, $9
	printf "cudatrace export (perfetto): %6.2f s  %7d KB\n", $3, $4
	printf "cudatrace export, 1/10:      %6.2f s  %7d KB\n", $5, $6
	printf "time   export / dummy:          %.2f  (target <= 1.0)\n", $3 / $1
	printf "Perfetto bytes per event:       %.1f\n", $7 / n
	printf "with GPU work: babeltrace2 -o dummy %.2f s, export perfetto %.2f s, ctf %.2f s\n",
		$10, $12, $14
	printf "time   perfetto / dummy, GPU work: %.2f  (target <= 1.0)\n", $12 / $10
	printf "time   ctf / dummy, GPU work:      %.2f  (target <= 1.0)\n", $14 / $10
}'
set -- $dummy $export $export_small $dummy_small
bench_memory export "$4" "$6" "$2" "$8"
set -- $dummy_gpu $ctf_gpu $ctf_gpu_small $dummy_gpu_small
bench_memory "ctf export" "$4" "$6" "$2" "$8" "memory ctf, GPU work, 10x / 1x:"
bench_cores
