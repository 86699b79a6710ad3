#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The decoding side held to a file written by hand: make-ctf.py's "forms"
# trace, whose every field the script writes as a literal, read by the
# real reader (analyzers/decode-print prints each event as the analyses
# are handed it) and compared byte for byte with expected/decode-forms.txt,
# derived from the script's values and doc/events.md's rules alone: a
# repeat takes the fields of the whole event its shape names, with its own
# correlation id and the entry its low bits give (past 2^32 ns here); a
# repeat_run's calls come at base + exit, entered duration before, on the
# run's thread or the one it names, where the run is in the trace; a
# launch_unconfigured is a launch with config_known 0 and no stream; a
# gpu_batch's records and gpu_memcpy_times and gpu_kernel_times are the
# gpu_memcpy and gpu_kernel they stand for, with what their host event
# says. The report tests check what the analyses make of such events; this
# one checks the events themselves, so that a decoding mistake the
# figures hide (a field swapped, a time off) is caught.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"

builddir=${TESTS_BUILDDIR:-$(cd "$here/.." && pwd)}
decode_print=$builddir/analyzers/decode-print
python=${PYTHON3:-python3}
[ -x "$decode_print" ] || tap_fail_all "decode-print is not built ($decode_print)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-decode.XXXXXX") ||
	tap_fail_all "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT

"$python" "$here/make-ctf.py" forms "$tmp/forms" >/dev/null ||
	tap_fail_all "make-ctf.py makes the trace forms"
status=0
"$decode_print" "$tmp/forms" >"$tmp/decoded.txt" 2>"$tmp/decoded.err" || status=$?
is "decode-print reads the trace whole" "$status" 0 || sed 's/^/#   /' "$tmp/decoded.err"
if cmp -s "$here/expected/decode-forms.txt" "$tmp/decoded.txt"; then
	tap_result 0 "the decoded events are those of expected/decode-forms.txt"
else
	tap_result 1 "the decoded events are those of expected/decode-forms.txt"
	diff -u "$here/expected/decode-forms.txt" "$tmp/decoded.txt" | sed 's/^/#   /'
fi
tap_done
