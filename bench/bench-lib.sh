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
#                         bounded live set) $work/large and $work/small
#   median3 CMD...        the median of three runs' "seconds kilobytes"
#                         (elapsed time, peak RSS)
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
command -v babeltrace2 >/dev/null || { echo "$0: babeltrace2 is not installed" >&2; exit 2; }

bench_traces() {
	echo "$(basename "$0"): writing traces of $events and $small events"
	"$python" "$top_srcdir/tests/analyzers/make-ctf.py" bench "$events" "$work/large" >/dev/null
	"$python" "$top_srcdir/tests/analyzers/make-ctf.py" bench "$small" "$work/small" >/dev/null
}

median3() {
	for run in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$work/time.$run" "$@" >/dev/null 2>&1
	done
	cat "$work/time.1" "$work/time.2" "$work/time.3" | sort -n | sed -n 2p
}

# The reader decodes on one thread while the analyses run on another
# (analyzers/decode-thread.h): on one core their times add up; on two, the
# pass takes the longer of the two, at best babeltrace2's own decoding.
bench_cores() {
	echo "cores: $(nproc) (decoding and analyses overlap on 2 or more; on 1 their times add)"
}
