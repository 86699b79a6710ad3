#!/bin/sh
# SPDX-License-Identifier: MIT
# `cudatrace export --format ctf` on traces made by make-ctf.py, whose
# content is known: traces without GPU operations (allocations only, another
# provider's events, no packets, a cudatrace of a major version to come)
# and one of a layout this cudatrace does not know exit with 2, a clear
# message and no output directory left behind; traces whose every field
# sits at the ends of its range (GPU times of 0, of 2^64 - 1, ending before
# they start; seeds 1 to 5) give, without a crash, a GPU-time trace that
# babeltrace2 reads, with what had to be left out said in a warning.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"

builddir=${CUDATRACE_BUILDDIR:-$(cd "$here/../.." && pwd)}
cmd=${CUDATRACE:-$builddir/cli/cudatrace}
python=${PYTHON3:-python3}
[ -x "$cmd" ] || tap_fail_all "the cudatrace command is not built ($cmd)"
command -v babeltrace2 >/dev/null 2>&1 || tap_fail_all "babeltrace2 is missing (Debian: babeltrace2)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-export.XXXXXX") || tap_fail_all "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT

# make TAG SCENARIO...: the trace in $tmp/TAG
make_trace() {
	tag=$1
	shift
	"$python" "$here/../analyzers/make-ctf.py" "$@" "$tmp/$tag" >/dev/null 2>"$tmp/$tag.make" ||
		tap_fail_all "make-ctf.py $* fails: $(head -n 1 "$tmp/$tag.make")"
}

# export TAG: `cudatrace export --format ctf` of $tmp/TAG into $tmp/TAG-gpu, bounded
run_export() {
	status=0
	timeout -k 10 120 "$cmd" export --format ctf -o "$tmp/$1-gpu" "$tmp/$1" \
		>"$tmp/$1.out" 2>"$tmp/$1.err" || status=$?
}

for scenario in basic foreign empty future old-layout; do
	make_trace "$scenario" "$scenario"
	run_export "$scenario"
	is "$scenario: exits 2" "$status" 2
	case $scenario in
	old-layout) says="a version of cudatrace this reader does not know" ;;
	*) says="hold no GPU operation" ;;
	esac
	ok "$scenario: says it ('$says')" grep -q "$says" "$tmp/$scenario.err"
	ok "$scenario: leaves no output directory" test ! -e "$tmp/$scenario-gpu"
done

for seed in 1 2 3 4 5; do
	tag=extremes-$seed
	make_trace "$tag" extremes "$seed"
	run_export "$tag"
	is "$tag: exits 0" "$status" 0
	[ "$status" = 0 ] || sed 's/^/#   /' "$tmp/$tag.err" | head -n 5
	ok "$tag: says what it left out" grep -q "left out" "$tmp/$tag.err"
	written=$(sed -n 's/.*: \([0-9]*\) GPU operations in .*/\1/p' "$tmp/$tag.out")
	if babeltrace2 "$tmp/$tag-gpu" >"$tmp/$tag.text" 2>"$tmp/$tag.read-err"; then
		begins=$(grep -c 'cudatrace_gpu:[a-z]*_begin:' "$tmp/$tag.text")
		ends=$(grep -c 'cudatrace_gpu:[a-z]*_end:' "$tmp/$tag.text")
		ok "$tag: babeltrace2 reads the GPU-time trace, a begin and an end per operation written ($written)" \
			test -n "$written" -a "$begins" = "$written" -a "$ends" = "$written"
	else
		tap_result 1 "$tag: babeltrace2 reads the GPU-time trace"
		grep -m 3 'CAUSED BY\|^  ' "$tmp/$tag.read-err" | sed 's/^/#   /'
	fi
done
tap_done
