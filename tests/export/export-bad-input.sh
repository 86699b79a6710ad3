#!/bin/sh
# SPDX-License-Identifier: MIT
# `cudatrace export --format ctf` on traces made by make-ctf.py, whose
# content is known: traces without GPU operations (allocations only, another
# provider's events, no packets, a cudatrace of a major version to come)
# and one of a layout this cudatrace does not know exit with 2, a message
# that says which and no output directory left behind; traces whose every
# field sits at the ends of its range (GPU times of 0, of 2^64 - 1, ending
# before they start; seeds 1 to 5) give, without a crash, a GPU-time trace
# that babeltrace2 reads, with what had to be left out said in a warning.
# A trace with GPU work (make-ctf.py bench-gpu) cut short in a host
# stream, or with event data that cannot be decoded there, is exported up
# to the damage: exit 0, a warning that says so, fewer operations than
# the whole trace gives, a GPU-time trace that babeltrace2 reads. An
# output that is, or is inside, the trace read is refused (exit 2), in
# either format.
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
	basic) says="hold no GPU operation" ;;
	foreign) says="has no cudatrace events" ;;
	empty) says="has no events" ;;
	future) says="newer than this reader" ;;
	old-layout) says="a version of cudatrace this reader does not know" ;;
	esac
	ok "$scenario: says it ('$says')" grep -q "$says" "$tmp/$scenario.err"
	ok "$scenario: leaves no output directory" test ! -e "$tmp/$scenario-gpu"
done

# check_read TAG: babeltrace2 reads $tmp/TAG-gpu, a begin and an end per
# operation the export says it wrote ($written, set here)
check_read() {
	written=$(sed -n 's/.*: \([0-9]*\) GPU operations in .*/\1/p' "$tmp/$1.out")
	if babeltrace2 "$tmp/$1-gpu" >"$tmp/$1.text" 2>"$tmp/$1.read-err"; then
		begins=$(grep -c 'cudatrace_gpu:[a-z]*_begin:' "$tmp/$1.text")
		ends=$(grep -c 'cudatrace_gpu:[a-z]*_end:' "$tmp/$1.text")
		ok "$1: babeltrace2 reads the GPU-time trace, a begin and an end per operation written ($written)" \
			test -n "$written" -a "$begins" = "$written" -a "$ends" = "$written"
	else
		tap_result 1 "$1: babeltrace2 reads the GPU-time trace"
		grep -m 3 'CAUSED BY\|^  ' "$tmp/$1.read-err" | sed 's/^/#   /'
	fi
}

for seed in 1 2 3 4 5; do
	tag=extremes-$seed
	make_trace "$tag" extremes "$seed"
	run_export "$tag"
	is "$tag: exits 0" "$status" 0
	[ "$status" = 0 ] || sed 's/^/#   /' "$tmp/$tag.err" | head -n 5
	ok "$tag: says what it left out" grep -q "left out" "$tmp/$tag.err"
	check_read "$tag"
done

# The whole trace: two host stream files of two 1 MiB packets, and the GPU records'.
make_trace whole bench-gpu 50000
run_export whole
is "whole: exits 0" "$status" 0
check_read whole
whole=$written

# An empty directory as the output, which the man page allows: the trace is
# written into it; an export that fails leaves it there, empty.
# empty_output TAG TRACE: the export of $tmp/TRACE into the empty $tmp/TAG
empty_output() {
	mkdir "$tmp/$1"
	status=0
	timeout -k 10 120 "$cmd" export --format ctf -o "$tmp/$1" "$tmp/$2" \
		>"$tmp/$1.out" 2>"$tmp/$1.err" || status=$?
}
empty_output into-empty whole
is "into an empty directory: exits 0" "$status" 0
[ "$status" = 0 ] || sed 's/^/#   /' "$tmp/into-empty.err" | head -n 5
ok "into an empty directory: the GPU-time trace is in it" test -s "$tmp/into-empty/metadata"
empty_output empty-kept basic
is "nothing to export into an empty directory: exits 2" "$status" 2
ok "nothing to export into an empty directory: it is left there, empty" \
	sh -c 'test -d "$1" && test -z "$(ls -A "$1")"' sh "$tmp/empty-kept"
# damaged TAG SAYS: the export of $tmp/TAG, damaged in cudatrace_0, ends at the damage.
# babeltrace2 2.0 leaks on its own error paths: memory errors are checked, not leaks.
damaged() {
	asan=${ASAN_OPTIONS:-}
	ASAN_OPTIONS="${asan:+$asan:}detect_leaks=0"
	export ASAN_OPTIONS
	run_export "$1"
	ASAN_OPTIONS=$asan
	is "$1: exits 0" "$status" 0
	[ "$status" = 0 ] || sed 's/^/#   /' "$tmp/$1.err" | head -n 5
	ok "$1: says so ('$2')" grep -q "$2" "$tmp/$1.err"
	ok "$1: says nothing of babeltrace2's internals" \
		sh -c '! grep -q "msg-it\|0x[0-9a-f]\{6,\}\|addr=" "$1"' sh "$tmp/$1.err"
	check_read "$1"
	ok "$1: fewer operations than the whole trace's ($written < $whole)" \
		test -n "$written" -a -n "$whole" -a "${written:-0}" -lt "${whole:-0}"
}
cp -r "$tmp/whole" "$tmp/cut"
truncate -s 1500000 "$tmp/cut/cudatrace_0"
damaged cut "cut short"
# 0xff bytes in the second packet's events: an event class id no class has
cp -r "$tmp/whole" "$tmp/corrupt"
head -c 200 /dev/zero | tr '\000' '\377' |
	dd of="$tmp/corrupt/cudatrace_0" bs=1 seek=1200000 conv=notrunc 2>/dev/null
damaged corrupt "cannot be decoded"

# An output that is, or is inside, the trace read (by another name too):
# refused before anything is written, exit 2, the trace left as it was.
echo "notes of the recorder" >"$tmp/whole/cudatrace.info"
ln -s whole "$tmp/whole-link"
whole_files=$(ls "$tmp/whole")
for format in perfetto ctf; do
	for output in whole/cudatrace.info whole whole/sub/out whole-link/metadata; do
		status=0
		timeout -k 10 120 "$cmd" export --format "$format" -o "$tmp/$output" "$tmp/whole" \
			>"$tmp/inside.out" 2>"$tmp/inside.err" || status=$?
		is "$format -o $output: exits 2" "$status" 2
		ok "$format -o $output: says it is the trace read" \
			grep -q "is \(inside \)\?the trace .*whole' that is read" "$tmp/inside.err"
	done
	ok "$format: the trace is left as it was" \
		test "$(cat "$tmp/whole/cudatrace.info")" = "notes of the recorder" -a \
		"$(ls "$tmp/whole")" = "$whole_files"
done
rm "$tmp/whole/cudatrace.info"

# A file size limit the GPU-time trace outgrows (SIGXFSZ ignored: the write
# fails rather than the process): the write fails; the export says so,
# exits 1 and takes its directory back.
status=0
(
	trap '' XFSZ
	ulimit -f 1000
	exec timeout -k 10 120 "$cmd" export \
		--format ctf -o "$tmp/full-gpu" "$tmp/whole"
) >"$tmp/full.out" 2>"$tmp/full.err" || status=$?
is "full: exits 1" "$status" 1
[ "$status" = 1 ] || sed 's/^/#   /' "$tmp/full.err" | head -n 5
ok "full: says it cannot write" grep -q "cannot write the GPU-time trace into" "$tmp/full.err"
ok "full: leaves no output directory" test ! -e "$tmp/full-gpu"
tap_done
