#!/bin/sh
# SPDX-License-Identifier: MIT
#
# stack-bench.sh [BUILDDIR [ROUNDS]]: the instructions the call stack of
# an allocation costs, counted by callgrind (stable from run to run,
# unlike times), by CUDATRACE_STACK_DEPTH. Runs bench/stack-loop (ROUNDS x
# cudaMalloc + cudaFree from 40 frames of the program's own code, default
# 2000) on the simulated GPU, injected with libcudatrace.so, into a session
# that enables cudatrace:*, once per depth; prints per call (a cudaMalloc
# or a cudaFree) the instructions of cudatrace's callbacks and of taking
# the stack (call_stack_id: unwinding, hashing, emitting a new stack).
#
# The measurement behind the default depth is in bench/stack-depth.md. Needs
# valgrind, lttng-tools and make -C BUILDDIR/bench stack-loop.

top=$(cd "$(dirname "$0")/.." && pwd)
CUDATRACE_BUILDDIR=$(cd "${1:-$top/_build/dev}" && pwd) || exit 2
rounds=${2:-2000}
export CUDATRACE_BUILDDIR
set -- "$CUDATRACE_BUILDDIR" "$rounds"
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/lttng-session.sh"
. "$top/tests/lib/trace-run.sh"

lttng_private_ns "$@"
trace_locate
loop="$CUDATRACE_BUILDDIR/bench/stack-loop"
if [ ! -x "$loop" ]; then
	echo "stack-bench: $loop is not built" >&2
	exit 2
fi
if ! command -v valgrind >/dev/null; then
	echo "stack-bench: valgrind is not installed" >&2
	exit 2
fi
lttng_daemon_start || exit 1

TRACE_NO_LEDGER=1
TRACE_TIMEOUT=600
calls=$((2 * rounds))

# count DEPTH: one run of stack-loop under callgrind; prints its line.
count() {
	out="$lttng_tmp/depth-$1.callgrind"
	CUDATRACE_STACK_DEPTH=$1 trace_run "depth-$1" traced valgrind --tool=callgrind \
		--callgrind-out-file="$out" --toggle-collect=callbacks_dispatch "$loop" "$rounds" 40
	if [ "$trace_status" -ne 0 ]; then
		echo "stack-bench: depth $1 failed ($trace_status)" >&2
		cat "$lttng_tmp/depth-$1.err" >&2
		exit 1
	fi
	callgrind_annotate --inclusive=yes --threshold=100 "$out" >"$out.txt" 2>/dev/null
	awk -v calls="$calls" -v depth="$1" '
	function number(s) { gsub(/,/, "", s); return s + 0 }
	/PROGRAM TOTALS/ { total = number($1) }
	/:call_stack_id / { stack = number($1) }
	END {
		printf "  depth %3d  %8.1f Ir/call in its callbacks, %7.1f of them taking the stack\n",
			depth, total / calls, stack / calls
	}' "$out.txt"
}

echo "stack-bench: $rounds x (cudaMalloc + cudaFree) from 40 frames, $calls calls"
lttng_session_begin stacks 4M 8 || exit 1
for depth in 0 8 16 32 64 128; do
	count "$depth"
done
lttng_session_end stacks
