#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench-runs.sh - `make bench` still runs: each benchmark, briefly, must end
# with status 0 and print its figures against their targets. Nothing is
# timed and no figure is compared with its target (those are for `make
# bench` on a quiet machine); a figure must only be there and be a positive
# number, so that a change that stops a benchmark half way, or leaves one
# of its figures empty, fails `make check`. The environment is the one
# bench/Makefile.am gives `make bench`.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib/tap.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-runs.XXXXXX") || tap_fail_all "no temporary directory"
trap 'rm -rf "$work"' EXIT

# run TAG CMD...: CMD's output in $work/TAG; one test, on its status.
run() {
	tag=$1
	shift
	"$@" >"$work/$tag" 2>&1
	status=$?
	is "$tag: ends with status 0" "$status" 0 || sed 's/^/#   /' "$work/$tag"
}

# figure TAG DESC PATTERN: the first number after the first match of
# PATTERN (an awk extended regular expression) in TAG's output is a
# positive number.
figure() {
	value=$(awk -v re="$3" 'match($0, re) {
		rest = substr($0, RSTART + RLENGTH)
		if (match(rest, /[0-9][0-9.]*/)) print substr(rest, RSTART, RLENGTH)
		exit
	}' "$work/$1")
	ok "$1: prints $2 ($value)" awk -v v="$value" 'BEGIN { exit !(v != "" && v + 0 > 0) }' ||
		sed 's/^/#   /' "$work/$1"
}

run run-bench env BENCH_REPS=1 BENCH_ROUNDS=200 sh "$here/run-bench.sh"
figure run-bench "the traced host time per call" "traced into a session"
figure run-bench "the trace bytes per call" "trace bytes per call:"
figure run-bench "the bare LTTng event's cost" "one bare LTTng event of a memcpy event's size:"

run bench-callgrind sh "$here/../tools/bench-callgrind" "$CUDATRACE_BUILDDIR" 50
figure bench-callgrind "the instructions per traced call" "^  session "
figure bench-callgrind "the instructions writing its events" "of them writing its events"

run report-bench sh "$here/report-bench.sh" 50000
figure report-bench "the report's time over babeltrace2's" "time +report / dummy:"
figure report-bench "the report's memory ratio" "memory 10x events / 1x:"
figure report-bench "the report's time with GPU work" "time +report / dummy, GPU work:"

run export-bench sh "$here/export-bench.sh" 50000
figure export-bench "the export's time over babeltrace2's" "time +export / dummy:"
figure export-bench "the Perfetto export's time with GPU work" "time +perfetto / dummy, GPU work:"
figure export-bench "the GPU-time CTF export's time" "time +ctf / dummy, GPU work:"
figure export-bench "the GPU-time CTF export's memory ratio" "memory ctf, GPU work, 10x / 1x:"

run loop-bench sh "$here/loop-bench.sh" 100 2000
for loop in async slices alloc event memset query; do
	figure loop-bench "the instructions one $loop call adds" "instructions added per call, $loop:"
done
for loop in copy launch; do
	figure loop-bench "the instructions one $loop call adds" "instructions added per call, $loop:"
	figure loop-bench "the report's time on the $loop loop" "time report / dummy, $loop:"
	figure loop-bench "the Perfetto export's time on the $loop loop" "time perfetto / dummy, $loop:"
	figure loop-bench "the CTF export's time on the $loop loop" "time ctf / dummy, $loop:"
	figure loop-bench "the report's memory on the $loop loop" "memory report 10x / 1x, $loop:"
done

# PyTorch's steps, wall time only: under callgrind it starts in minutes.
run torch-bench sh "$here/torch-bench.sh" 5 0
figure torch-bench "the recorded training step's time" "wall time per step, recorded / untraced:"
figure torch-bench "the training step's time with --tensor-sites" \
	"wall time per step, recorded with --tensor-sites / untraced:"
figure torch-bench "the report's time on PyTorch steps" "time report / dummy, PyTorch steps:"

tap_done
