# SPDX-License-Identifier: MIT
#
# bench-lib.sh - what the analyzer benchmarks share (POSIX sh): source it
# with "$1" the number of events (default 10 million).
#
#   $events, $small       the large trace's events, and a tenth of them
#   $cudatrace            the cudatrace command of the build
#   $work                 a scratch directory, removed at exit
#   bench_traces          writes the synthetic traces (tests/analyzers/
#                         make-ctf.py: calls that allocate and free with a
#                         bounded live set, in two stream files of 1 MiB
#                         packets) $work/large and $work/small, and
#                         $work/gpu, of $events events too, where each
#                         allocation is followed by a copy and a kernel
#                         launch with their GPU records (in gpu_batch
#                         events, as the tracer writes them), in a third
#                         stream file, the calls that repeat their
#                         thread's earlier one repeat events, as the
#                         tracer writes them too (make-ctf.py bench-gpu)
#   median3 [--fresh OUT] CMD...
#                         the median of three runs' "seconds kilobytes"
#                         (elapsed time, peak RSS), as three-runs.sh runs
#                         them (--fresh: OUT removed before each run,
#                         outside its time); a run that fails ends the
#                         caller's subshell with 1
#   bench_memory NAME M M_SMALL DUMMY DUMMY_SMALL [WHAT]
#                         prints the memory figures of NAME (peak RSS in KB
#                         on the large and the small trace) beside
#                         babeltrace2 -o dummy's own on the same traces,
#                         the first line labelled WHAT (default "memory
#                         10x events / 1x:")
#   bench_cores           says how many cores the ratios were measured on

events=${1:-10000000}
small=$((events / 10))
bench_here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${TOP_SRCDIR:-$bench_here/..}
builddir=${TOP_BUILDDIR:-$top_srcdir}
cudatrace=${CUDATRACE:-$builddir/cli/cudatrace}
python=${PYTHON3:-python3}
# make-ctf.py lays its events out as the event contract says (tools/ct_contract.py)
PYTHONPATH=$builddir/tools${PYTHONPATH:+:$PYTHONPATH}
export PYTHONPATH
work=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

[ -x "$cudatrace" ] || { echo "$0: $cudatrace is not built" >&2; exit 2; }
. "$bench_here/three-runs.sh"
command -v babeltrace2 >/dev/null || { echo "$0: babeltrace2 is not installed" >&2; exit 2; }

bench_traces() {
	echo "$(basename "$0"): writing traces of $events and $small events, and of $events with GPU work"
	"$python" "$top_srcdir/tests/analyzers/make-ctf.py" bench "$events" "$work/large" >/dev/null
	"$python" "$top_srcdir/tests/analyzers/make-ctf.py" bench "$small" "$work/small" >/dev/null
	"$python" "$top_srcdir/tests/analyzers/make-ctf.py" bench-gpu "$events" "$work/gpu" >/dev/null
}

median3() {
	three_runs "$work" "$@"
	cat "$work/time.1" "$work/time.2" "$work/time.3" | sort -n | sed -n 2p
}

# Babeltrace's ctf.fs source indexes every packet of every stream file
# before the first message (about 70 bytes a packet): its own peak RSS
# grows with the number of packets, whoever reads the trace. It also maps
# each stream file through a window of up to 8 MiB, whose pages count in
# the RSS: on traces smaller than that the RSS follows the files' size.
# The bench traces are laid out as `cudatrace record` writes them
# (make-ctf.py bench): 1 MiB packets, as its default sub-buffers, so that
# index is a recorded trace's, and a stream file per CPU (two). Beside the
# ratio of the whole peak RSS, the growth of what is ours: the peak above
# babeltrace2's own on the same trace, 10x events over 1x.
bench_memory() {
	echo "$2 $3 $4 $5" | awk -v name="$1" -v what="${6:-memory 10x events / 1x:}" '{
		printf "%-32s%.2f  (target <= 1.2)\n", what, $1 / $2
		printf "  babeltrace2 -o dummy itself:  %.2f  (%d KB -> %d KB: its packet index, its file window)\n", $3 / $4, $4, $3
		printf "  %s above babeltrace2:  %.2f  (%d KB -> %d KB)\n", name, ($1 - $3) / ($2 - $4), $2 - $4, $1 - $3
	}'
}

# The reader decodes a group of stream files per core, each on a thread of
# its own, while the analyses run on another (analyzers/read/decode-merge.h):
# on one core their times add up; on two, the two stream files of the
# bench traces decode in parallel, faster than babeltrace2's one thread.
bench_cores() {
	echo "cores: $(nproc) (a decoding thread per core and stream file beside the analyses';" \
		"on 1 their times add)"
}
