#!/bin/sh
# SPDX-License-Identifier: MIT
#
# other-cupti.sh - the tracer uses one CUPTI and calls no function of
# another copy the program loads, as a framework loads its wheel's
# libcupti.so.13 by full path:
#
#   - later: a Python process starts CUDA (the tracer binds the
#     simulator's CUPTI), then loads a copy of the simulator's CUPTI from
#     another directory and programs/other-cupti/libcupti.so.13, a CUPTI
#     whose every function aborts the process, and stays while the
#     tracer's session watcher looks at the loaded objects again;
#   - before: the same copies loaded before CUDA starts, after the
#     simulator's CUPTI (the tracer's first look finds them all).
#
# Each run exits with 0, the stand-in is never called, its library_load
# and the copy's say other_cupti 1 with no version, and the simulator's
# CUPTI's says other_cupti 0 with the version tracer_info has.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
standin="$trace_builddir/tests/programs/other-cupti/libcupti.so.13"
[ -e "$standin" ] || tap_fail_all "programs/other-cupti/libcupti.so.13 is not built ($standin)"
trace_daemon_or_fail

# field TAG EVENT KEY=VALUE FIELD: FIELD of TAG's first EVENT whose KEY is
# VALUE (KEY=VALUE may be "-" for the first EVENT), decoded; "none" when
# there is no such event.
field() {
	"$trace_python" -c 'import sys, urllib.parse
tag, event, match, want = sys.argv[1:5]
for line in open(tag):
    pairs = dict(p.split("=", 1) for p in line.split() if "=" in p)
    if pairs.get("event") != "cudatrace:" + event:
        continue
    fields = {k: urllib.parse.unquote(v) for k, v in pairs.items()}
    if match != "-":
        key, value = match.split("=", 1)
        if fields.get(key) != value:
            continue
    print(fields.get(want, ""))
    break
else:
    print("none")' "$lttng_tmp/$1.events" "$2" "$3" "$4"
}

mkdir -p "$lttng_tmp/wheel"
copy="$lttng_tmp/wheel/libcupti.so.13"
cp "$trace_simdir/libcupti.so.13" "$copy"
sim_cupti="$trace_simdir/libcupti.so.13"

# check TAG AT_START: what the trace of run TAG says of the three CUPTIs.
check() {
	is "$1: the CUPTI that aborts was never called" \
		"$(grep -c 'other-cupti:' "$lttng_tmp/$1.err")" 0
	is "$1: tracer_info has the simulator's CUPTI version" \
		"$(field "$1" tracer_info - cupti_version)" 130001
	is "$1: the simulator's CUPTI is cudatrace's" \
		"$(field "$1" library_load "path=$sim_cupti" other_cupti)" 0
	is "$1: ... with its version" "$(field "$1" library_load "path=$sim_cupti" version)" 130001
	for other in "$copy" "$standin"; do
		is "$1: $(basename "$(dirname "$other")")/libcupti.so.13 is another CUPTI" \
			"$(field "$1" library_load "path=$other" other_cupti)" 1
		is "$1: ... with no version" "$(field "$1" library_load "path=$other" version)" ""
		is "$1: ... at_start $2" "$(field "$1" library_load "path=$other" at_start)" "$2"
	done
}

# shellcheck disable=SC2046
if trace_traced later $(trace_python_env) -- \
	"$trace_python" "$trace_here/load-later.py" --wait 1 "$copy" "$standin" &&
	trace_read later; then
	check later 0
fi
# shellcheck disable=SC2046
if trace_traced before $(trace_python_env) -- \
	"$trace_python" "$trace_here/load-later.py" --wait 1 --before "$copy" "$standin" &&
	trace_read before; then
	check before 1
fi
tap_done
