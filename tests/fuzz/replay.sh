#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fuzz-report.c's target (the trace reader, every analysis, every writer)
# on each input committed under fuzz/: every crash that fuzzing found
# (regressions/, kept so that it never comes back) and the seeds fuzzing
# starts from (seeds/: a recorded trace, make-ctf.py's). Each input is a
# test point; a crash or a sanitizer report ends the run, which fails.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"

replay=${TESTS_BUILDDIR:-$here/..}/fuzz/replay
[ -x "$replay" ] || tap_fail_all "fuzz/replay is not built ($replay)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-replay.XXXXXX") ||
	tap_fail_all "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
# babeltrace2 2.0 leaks on its own error paths: memory errors are checked, not leaks
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
TMPDIR=$tmp "$replay" "$here/regressions" "$here/seeds" >"$tmp/replay.tap" 2>&1
tap_relay fuzz "$tmp/replay.tap"
tap_done
