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
# Then the same for bench/python-stack-loop.py (the allocations made
# through ctypes from 10 and 40 Python frames, at the default depth),
# with the part of it that reads the Python frames (python_frames_format).
#
# The measurement behind the default depth is in bench/stack-depth.md. Needs
# valgrind, lttng-tools, python3 and make -C BUILDDIR/bench stack-loop.

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

# count LABEL DEPTH PROGRAM...: one run of PROGRAM under callgrind with
# CUDATRACE_STACK_DEPTH=DEPTH; prints its line.
count() {
	label=$1
	depth=$2
	shift 2
	out="$lttng_tmp/$label.callgrind"
	CUDATRACE_STACK_DEPTH=$depth trace_run "$label" traced valgrind --tool=callgrind \
		--callgrind-out-file="$out" --toggle-collect=callbacks_dispatch "$@"
	if [ "$trace_status" -ne 0 ]; then
		echo "stack-bench: $label failed ($trace_status)" >&2
		cat "$lttng_tmp/$label.err" >&2
		exit 1
	fi
	callgrind_annotate --inclusive=yes --threshold=100 "$out" >"$out.txt" 2>/dev/null
	awk -v calls="$calls" -v label="$label" '
	function number(s) { gsub(/,/, "", s); return s + 0 }
	/PROGRAM TOTALS/ { total = number($1) }
	# a function has a line of its own and one per file inlined into it:
	# the largest is its whole inclusive cost
	/:call_stack_id / && number($1) > stack { stack = number($1) }
	/:python_frames_format / && number($1) > python { python = number($1) }
	END {
		printf "  %-12s %8.1f Ir/call in its callbacks, %7.1f of them taking the stack",
			label, total / calls, stack / calls
		if (python)
			printf ", %7.1f reading Python'"'"'s frames", python / calls
		printf "\n"
	}' "$out.txt"
}

echo "stack-bench: $rounds x (cudaMalloc + cudaFree) from 40 frames, $calls calls"
lttng_session_begin stacks 4M 8 || exit 1
for depth in 0 8 16 32 64 128; do
	count "depth-$depth" "$depth" "$loop" "$rounds" 40
done
# valgrind follows no child: the interpreter itself, not a wrapper (pyenv's)
python=$("$trace_python" -c 'import sys; print(sys.executable)')
echo "stack-bench: the same through ctypes from Python ($python), depth 32"
for frames in 10 40; do
	count "python-$frames" 32 "$python" "$top/bench/python-stack-loop.py" "$rounds" "$frames"
done
lttng_session_end stacks
