#!/bin/sh
# SPDX-License-Identifier: MIT
#
# loop-bench.sh [ROUNDS [TRACE_ROUNDS]] - what tracing and analysing cost
# on the loops of bench/call-loop beyond its default one, each figure
# printed against its target (`make bench`; nothing is asserted):
#
#   - copy: synchronous 4-byte cudaMemcpy host-to-device then
#     device-to-host; launch: kernel launches alone (two calls a round);
#   - instructions at the margin, on those two loops and on the other
#     loops of call-loop (LOOP_BENCH_LOOPS, default all of them: async,
#     its default loop, cudaMemcpyAsync of 256 bytes and a kernel launch
#     on a stream, the loop of run-bench.sh; slices,
#     the copy loop on successive slices of a buffer, of varying size;
#     alloc, cudaMalloc and cudaFree; event, cudaEventRecord and
#     cudaEventQuery; memset, cudaMemsetAsync and cudaStreamSynchronize;
#     query, cudaGetDevice and cudaGetLastError): the whole process (the
#     program, the simulated CUDA and CUPTI, its dispatch included,
#     lttng-ust, every thread) counted by callgrind, recorded with `cudatrace record`'s
#     default options and not traced at all, at ROUNDS and 2 x ROUNDS
#     rounds (default 10000: 20,000 and 40,000 calls); the difference
#     between the two runs over the difference in calls is what one more
#     call costs, start-up and teardown taken out, and the traced figure
#     less the untraced one what tracing adds; target at most 2000;
#   - the report and the exports: the copy and launch loops (or those
#     of LOOP_BENCH_ANALYSIS_LOOPS, any of call-loop's that has GPU work,
#     which the CTF export needs: not query) each recorded
#     with TRACE_ROUNDS rounds (default 1,000,000: 2 million calls), then
#     `cudatrace report --format json`, `export --format perfetto` and
#     `export --format ctf` timed against `babeltrace2 -o dummy` on the
#     same trace, best of three; target at most 1.0; beside the times,
#     the instructions each takes over babeltrace2's, all threads counted
#     by callgrind on a recording of a tenth the rounds (a steadier figure
#     than a time on a shared machine; no target); and their peak RSS on a
#     recording of ten times the rounds over their peak RSS on it; target
#     at most 1.2 (memory flat in the trace's size). Memory is compared
#     from TRACE_ROUNDS on, not below: on smaller traces both babeltrace2's
#     and ours still grow with the trace, as babeltrace2 maps more of each
#     stream file and the decoding threads fill more of their batches,
#     until both reach their bounds.
#
# ROUNDS or TRACE_ROUNDS 0 leaves that part out. LOOP_BENCH_RECORD_OPTS
# adds options to the recordings counted by callgrind (--all-processes:
# without the filter on the process tree); LOOP_BENCH_KEEP=DIR keeps
# callgrind's files there, for callgrind_annotate.
#
# Runs in a private mount namespace with its own session daemon, like the
# trace tests. Needs valgrind and a build with bench/call-loop.

bench_here=$(cd "$(dirname "$0")" && pwd)
CUDATRACE_SRCDIR=$(cd "$bench_here/.." && pwd)
export CUDATRACE_SRCDIR
cli_here=$CUDATRACE_SRCDIR/tests/cli
. "$CUDATRACE_SRCDIR/tests/lib/cli.sh"

cli_setup "$@"
. "$bench_here/three-runs.sh"
rounds=${1:-10000}
margin_loops=${LOOP_BENCH_LOOPS:-copy launch async slices alloc event memset query}
trace_rounds=${2:-1000000}
loop="${BENCH_BUILDDIR:-$trace_builddir/bench}/call-loop"
[ -x "$loop" ] || { echo "loop-bench: $loop is not built" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "loop-bench: valgrind is not installed" >&2; exit 2; }
command -v babeltrace2 >/dev/null || { echo "loop-bench: babeltrace2 is not installed" >&2; exit 2; }
cli_with_daemon

# The simulator's GPU keeps up with the host: short kernels and copies.
CUDASIM_KERNEL_NS=200
CUDASIM_COPY_LATENCY_NS=200
CUDASIM_LAUNCH_LATENCY_NS=100
export CUDASIM_KERNEL_NS CUDASIM_COPY_LATENCY_NS CUDASIM_LAUNCH_LATENCY_NS
CLI_TIMEOUT=1800

# callgrind_total TAG: the instructions callgrind counted in TAG's run.
callgrind_total() {
	sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$lttng_tmp/$1.callgrind"
}

# counted TAG plain|traced LOOP ROUNDS: call-loop under callgrind, not
# traced or recorded; prints its instructions.
counted() {
	tag=$1
	mode=$2
	set -- valgrind --tool=callgrind --callgrind-out-file="$lttng_tmp/$tag.callgrind" \
		"$loop" "$4" "$3"
	if [ "$mode" = traced ]; then
		set -- "$cli_bin" record ${LOOP_BENCH_RECORD_OPTS:-} -o "$lttng_tmp/$tag.trace" -- "$@"
	fi
	# No ledger: the simulator's own record of each call is not the
	# program's work.
	CUDASIM_LEDGER="" "$@" >"$lttng_tmp/$tag.out" 2>"$lttng_tmp/$tag.err"
	status=$?
	if [ "$status" -ne 0 ]; then
		echo "loop-bench: $tag failed ($status)" >&2
		cat "$lttng_tmp/$tag.err" >&2
		exit 1
	fi
	callgrind_total "$tag"
}

# margin LOOP: the instructions one more call costs, untraced and traced.
margin() {
	p1=$(counted "$1-plain-1" plain "$1" "$rounds") || exit 1
	p2=$(counted "$1-plain-2" plain "$1" $((2 * rounds))) || exit 1
	t1=$(counted "$1-traced-1" traced "$1" "$rounds") || exit 1
	t2=$(counted "$1-traced-2" traced "$1" $((2 * rounds))) || exit 1
	echo "$p1 $p2 $t1 $t2" | awk -v calls=$((2 * rounds)) -v loop="$1" '{
		plain = ($2 - $1) / calls
		traced = ($4 - $3) / calls
		printf "  %-7s untraced %7.1f Ir/call, recorded %7.1f Ir/call\n", loop, plain, traced
		printf "instructions added per call, %s: %.1f  (target <= 2000)\n", loop, traced - plain
	}'
}

if [ "$rounds" -gt 0 ]; then
	echo "loop-bench: instructions at the margin, $((2 * rounds)) -> $((4 * rounds)) calls (callgrind, whole process)"
	for each in $margin_loops; do
		margin "$each"
	done
	[ -z "${LOOP_BENCH_KEEP:-}" ] || cp "$lttng_tmp"/*.callgrind "$LOOP_BENCH_KEEP"/
fi

# recorded TAG LOOP ROUNDS: the loop recorded with `cudatrace record`'s
# default options into $lttng_tmp/TAG.
recorded() {
	CUDASIM_LEDGER="" "$cli_bin" record -q -o "$lttng_tmp/$1" -- "$loop" "$3" "$2" \
		>"$lttng_tmp/$1.out" 2>"$lttng_tmp/$1.err" || {
		echo "loop-bench: recording $1 failed" >&2
		cat "$lttng_tmp/$1.err" >&2
		exit 1
	}
}

# each_command TRACE FN: runs FN NAME OUT CMD... for each command the
# bench measures on TRACE (dummy: babeltrace2 -o dummy; report; perfetto
# and ctf: the exports), OUT being the file or directory CMD writes (none
# for the first two), removed after; prints FN's outputs on one line.
each_command() {
	trace=$1
	fn=$2
	line=
	for name in dummy report perfetto ctf; do
		out=$trace.$name
		case $name in
		dummy) set -- babeltrace2 -o dummy "$trace" ;;
		report) set -- "$cli_bin" report --format json "$trace" ;;
		*) set -- "$cli_bin" export --format "$name" -o "$out" "$trace" ;;
		esac
		figure=$("$fn" "$name" "$out" "$@") || exit 1
		rm -rf "$out"
		line="$line${line:+ }$figure"
	done
	echo "$line"
}

# timed NAME OUT CMD...: "seconds kilobytes", CMD's best of three.
timed() {
	out=$2
	shift 2
	best3 --fresh "$out" "$@"
}

# peak NAME OUT CMD...: CMD's peak RSS in KB, run once.
peak() {
	rm -rf "$2"
	shift 2
	/usr/bin/time -f "%M" -o "$lttng_tmp/peak" "$@" >/dev/null 2>&1 || {
		echo "loop-bench: $* failed" >&2
		exit 1
	}
	cat "$lttng_tmp/peak"
}

# instructions NAME OUT CMD...: CMD's instructions, all threads, counted
# by callgrind.
instructions() {
	rm -rf "$2"
	name=$1
	shift 2
	valgrind --tool=callgrind --callgrind-out-file="$lttng_tmp/$name.callgrind" \
		"$@" >/dev/null 2>"$lttng_tmp/$name.err" || {
		echo "loop-bench: $* failed under callgrind" >&2
		cat "$lttng_tmp/$name.err" >&2
		exit 1
	}
	callgrind_total "$name"
}

# discard TAG: removes the recording TAG and the files beside it.
discard() {
	rm -rf "$lttng_tmp/$1" "$lttng_tmp/$1".*
}

# analysis LOOP: the loop recorded with trace_rounds rounds, with a tenth
# of them and with ten times as many; the report's and exports' times
# against babeltrace2's on the first, their instructions on the second,
# their memory on the third against the first.
analysis() {
	recorded "$1-large" "$1" "$trace_rounds"
	large=$(each_command "$lttng_tmp/$1-large" timed) || exit 1
	discard "$1-large"
	recorded "$1-small" "$1" $((trace_rounds / 10))
	counts=$(each_command "$lttng_tmp/$1-small" instructions) || exit 1
	discard "$1-small"
	recorded "$1-huge" "$1" $((trace_rounds * 10))
	huge=$(each_command "$lttng_tmp/$1-huge" peak) || exit 1
	discard "$1-huge"
	# Times are kept above /usr/bin/time's resolution (short runs of
	# bench-runs.sh).
	echo "$large $counts $huge" | awk -v loop="$1" -v calls=$((2 * trace_rounds)) '{
		for (i = 1; i <= 7; i += 2)
			if ($i < 0.01) $i = 0.01
		printf "  %s, %d calls: babeltrace2 -o dummy %.2f s, report %.2f s, perfetto %.2f s, ctf %.2f s\n",
			loop, calls, $1, $3, $5, $7
		printf "time report / dummy, %s:   %.2f  (target <= 1.0)\n", loop, $3 / $1
		printf "time perfetto / dummy, %s: %.2f  (target <= 1.0)\n", loop, $5 / $1
		printf "time ctf / dummy, %s:      %.2f  (target <= 1.0)\n", loop, $7 / $1
		printf "  %s, %d calls, instructions of all threads: babeltrace2 -o dummy %.0f M, report %.0f M, perfetto %.0f M, ctf %.0f M\n",
			loop, calls / 10, $9 / 1e6, $10 / 1e6, $11 / 1e6, $12 / 1e6
		split("report perfetto ctf", name, " ")
		for (i = 1; i <= 3; i++)
			printf "instructions %s / dummy, %s: %.2f\n", name[i], loop, $(9 + i) / $9
		# The ctf.fs source of Babeltrace grows with the trace (its
		# packet index): beside each ratio, the growth of what is ours,
		# above it.
		printf "  %s, %d calls -> %d: peak RSS\n", loop, calls, calls * 10
		printf "memory babeltrace2 -o dummy itself 10x / 1x, %s: %.2f  (%d KB -> %d KB)\n",
			loop, $13 / $2, $2, $13
		for (i = 1; i <= 3; i++) {
			big = $(13 + i); little = $(2 + 2 * i)
			printf "memory %s 10x / 1x, %s: %.2f  (target <= 1.2; %d KB -> %d KB; above babeltrace2 %.2f)\n",
				name[i], loop, big / little, little, big, (big - $13) / (little - $2)
		}
	}'
}

[ "$trace_rounds" -gt 0 ] || exit 0
analysis_loops=${LOOP_BENCH_ANALYSIS_LOOPS:-copy launch}
case " $analysis_loops " in
*" query "*)
	echo "loop-bench: the query loop has no GPU work to export as CTF" >&2
	exit 2
	;;
esac
echo "loop-bench: report and exports on recorded traces of $((2 * trace_rounds)) calls (best of three)"
for each in $analysis_loops; do
	analysis "$each"
done
echo "cores: $(nproc)"
