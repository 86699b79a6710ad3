#!/bin/sh
# SPDX-License-Identifier: MIT
#
# torch-bench.sh [STEPS [COUNTED_STEPS]] - what tracing costs a PyTorch
# training loop (bench/torch-step.py: an elementwise model's forward and
# backward passes, an SGD step and the loss read back each step) on the
# simulated GPU, in the virtual environment of tools/framework-venv, each
# figure printed (`make bench`; nothing is asserted):
#
#   - wall time per step, untraced, recorded with `cudatrace record`'s
#     default options and recorded with --tensor-sites (PyTorch's
#     allocation history): the best of three runs of STEPS steps (default
#     500), timed by the script around its loop, and the ratios;
#   - the report of a recorded run of 40 x STEPS steps against
#     babeltrace2 -o dummy on its trace, best of three: reading a PyTorch
#     trace, whose call sites name frames in PyTorch's libraries (symbol
#     tables of hundreds of thousands of functions, read once a report);
#   - instructions per step at the margin: the whole process (Python,
#     PyTorch, the simulated CUDA and CUPTI, lttng-ust, every thread)
#     counted by callgrind at COUNTED_STEPS and 2 x COUNTED_STEPS steps
#     (default 200), untraced and recorded; the difference between the two
#     runs over the steps more is what one step costs, PyTorch's import and
#     start-up taken out. That start-up (some 9 billion instructions) varies
#     by millions from run to run, a step costs about one: the steps must
#     be many, and Python's string hashing is fixed (PYTHONHASHSEED=0).
#     Under callgrind PyTorch takes minutes to start: COUNTED_STEPS 0
#     leaves this part out.
#
# Runs in a private mount namespace with its own session daemon, like the
# trace tests. Needs valgrind and the framework environment (made once
# from PyPI by tools/framework-venv).

bench_here=$(cd "$(dirname "$0")" && pwd)
CUDATRACE_SRCDIR=$(cd "$bench_here/.." && pwd)
export CUDATRACE_SRCDIR
cli_here=$CUDATRACE_SRCDIR/tests/cli
. "$CUDATRACE_SRCDIR/tests/lib/cli.sh"

cli_setup "$@"
. "$bench_here/three-runs.sh"
steps=${1:-500}
counted=${2:-200}
venv=$("$trace_srcdir/tools/framework-venv") || {
	echo "torch-bench: the framework environment is not there (tools/framework-venv)" >&2
	exit 2
}
command -v valgrind >/dev/null || { echo "torch-bench: valgrind is not installed" >&2; exit 2; }
cli_with_daemon
# PyTorch on the simulator's libraries only (tests/frameworks/torch.sh).
cudasim_env=${CUDASIM_ENV:-$trace_builddir/tests/cudasim/cudasim-env}
step_py="$bench_here/torch-step.py"
CUDASIM_KERNEL_NS=200
CUDASIM_COPY_LATENCY_NS=200
CUDASIM_LAUNCH_LATENCY_NS=100
export CUDASIM_KERNEL_NS CUDASIM_COPY_LATENCY_NS CUDASIM_LAUNCH_LATENCY_NS
PYTHONHASHSEED=0
export PYTHONHASHSEED

# stepped TAG plain|traced STEPS [TOOL...]: torch-step.py, recorded or
# not, under TOOL; its output in $lttng_tmp/TAG.out.
stepped() {
	tag=$1
	mode=$2
	n=$3
	shift 3
	set -- "$cudasim_env" --libdir "$trace_simdir" "$@" "$venv/bin/python" "$step_py" "$n"
	[ "$mode" = traced ] || [ "$mode" = kept ] &&
		set -- "$cli_bin" record -q -o "$lttng_tmp/$tag.trace" -- "$@"
	[ "$mode" = sites ] &&
		set -- "$cli_bin" record -q --tensor-sites -o "$lttng_tmp/$tag.trace" -- "$@"
	CUDASIM_LEDGER="" timeout 3600 "$@" >"$lttng_tmp/$tag.out" 2>"$lttng_tmp/$tag.err" || {
		echo "torch-bench: $tag failed" >&2
		tail -n 5 "$lttng_tmp/$tag.err" >&2
		exit 1
	}
	[ "$mode" = kept ] || rm -rf "$lttng_tmp/$tag.trace"
}

# best MODE: the best ns_per_step of three runs. (Not a pipeline: a run
# that fails must end the script, not a subshell of it.)
best() {
	values=""
	for run in 1 2 3; do
		stepped "wall-$1-$run" "$1" "$steps" || exit 1
		value=$(sed -n 's/.*ns_per_step=\([0-9.]*\).*/\1/p' "$lttng_tmp/wall-$1-$run.out")
		if [ -z "$value" ]; then
			echo "torch-bench: wall-$1-$run printed no time:" >&2
			tail -n 5 "$lttng_tmp/wall-$1-$run.out" "$lttng_tmp/wall-$1-$run.err" >&2
			exit 1
		fi
		values="$values $value"
	done
	printf '%s\n' $values | sort -n | head -n 1
}

echo "torch-bench: $steps training steps, best of three"
plain=$(best plain) || exit 1
traced=$(best traced) || exit 1
sites=$(best sites) || exit 1
echo "$plain $traced $sites" | awk '{
	printf "  untraced %.1f us/step, recorded %.1f us/step, with --tensor-sites %.1f us/step\n",
		$1 / 1000, $2 / 1000, $3 / 1000
	printf "wall time per step, recorded / untraced: %.2f\n", $2 / $1
	printf "wall time per step, recorded with --tensor-sites / untraced: %.2f\n", $3 / $1
}'

stepped report kept $((40 * steps)) || exit 1
dummy=$(best3 babeltrace2 -o dummy "$lttng_tmp/report.trace") || exit 1
report=$(best3 "$cli_bin" report --format json "$lttng_tmp/report.trace") || exit 1
rm -rf "$lttng_tmp/report.trace"
echo "$dummy $report" | awk -v steps=$((40 * steps)) '{
	if ($1 < 0.01) $1 = 0.01
	printf "  %d steps recorded: babeltrace2 -o dummy %.2f s, report %.2f s\n", steps, $1, $3
	printf "time report / dummy, PyTorch steps: %.2f\n", $3 / $1
}'

[ "$counted" -gt 0 ] || exit 0
# counted TAG MODE STEPS: the instructions of that run.
counted() {
	stepped "$1" "$2" "$3" valgrind --tool=callgrind \
		--callgrind-out-file="$lttng_tmp/$1.callgrind" || exit 1
	sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$lttng_tmp/$1.callgrind"
}
echo "torch-bench: instructions at the margin, $counted -> $((2 * counted)) steps (callgrind, whole process)"
p1=$(counted plain-1 plain "$counted") || exit 1
p2=$(counted plain-2 plain $((2 * counted))) || exit 1
t1=$(counted traced-1 traced "$counted") || exit 1
t2=$(counted traced-2 traced $((2 * counted))) || exit 1
echo "$p1 $p2 $t1 $t2" | awk -v steps="$counted" '{
	plain = ($2 - $1) / steps
	traced = ($4 - $3) / steps
	printf "  untraced %.0f Ir/step, recorded %.0f Ir/step\n", plain, traced
	printf "instructions added per step: %.0f (%.2f x untraced)\n", traced - plain, traced / plain
}'
