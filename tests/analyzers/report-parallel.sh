#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace report` on traces of several stream files (make-ctf.py bench:
# one per CPU, as `cudatrace record` writes them, their events interleaved
# in time), decoded by a graph per group of stream files in parallel
# (analyzers/read/decode-merge.h), against the same traces read by one graph
# (CUDATRACE_DECODE_GROUPS=1): the JSON reports must be the same, and
# agree with the truth make-ctf.py prints. The traces: whole, in a time
# window, cut while written (a partial last packet in one file), with a
# corrupt packet inside one file, with its metadata cut, beside a trace
# refused (said once), two traces of a
# session read at once; two processes, a stream file each, whose events
# interleave; and every file of a small one damaged in many ways
# (damage.py), read in two groups.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
events=30000
trace=$report_tmp/trace
"$report_python" "$report_here/make-ctf.py" bench "$events" "$trace" >"$report_tmp/truth.json" ||
	tap_fail_all "make-ctf.py makes the trace"
is "the trace has a stream file per CPU" "$(ls "$trace" | grep -c '^cudatrace_')" 2

# TAG GROUPS ARGS...: the report of ARGS decoded in GROUPS groups
run_groups() {
	CUDATRACE_DECODE_GROUPS=$2
	export CUDATRACE_DECODE_GROUPS
	run_tag=$1
	shift 2
	report_run_damaged "$run_tag" --format=json "$@"
	unset CUDATRACE_DECODE_GROUPS
}

# TAG: the report of TAG-2 (two groups) is that of TAG-1 (one graph)
same_report() {
	if out=$("$report_python" - "$report_tmp/$1-1.out" "$report_tmp/$1-2.out" 2>&1 <<'PY'
import json, sys
one, two = (json.load(open(p)) for p in sys.argv[1:3])
if one != two:
    for key in sorted(set(one) | set(two)):
        if one.get(key) != two.get(key):
            print(f"section {key!r} differs")
    sys.exit(1)
PY
	); then
		tap_result 0 "$1: two groups report what one graph reports"
	else
		tap_result 1 "$1: two groups report what one graph reports"
		echo "$out" | head -n 5 | sed 's/^/#   /'
	fi
}

# TAG ARGS...: both runs, their exit status 0 and their reports the same
compare() {
	compare_tag=$1
	shift
	run_groups "$compare_tag-1" 1 "$@"
	report_exits "$compare_tag-1" 0
	run_groups "$compare_tag-2" 2 "$@"
	report_exits "$compare_tag-2" 0
	same_report "$compare_tag"
}

compare whole "$trace"
is "whole: every event read once" "$(report_value whole-2 "d['trace']['events']")" \
	"$(report_value whole-2 "t['events']")"
is "whole: every allocation counted" \
	"$(report_value whole-2 "d['memory']['devices'][0]['allocations']")" \
	"$(report_value whole-2 "t['allocations']")"
is "whole: the peak of the live set" "$(report_value whole-2 "d['memory']['devices'][0]['peak_bytes']")" \
	"$(report_value whole-2 "t['peak_bytes']")"
is "whole: the bytes live at the end" \
	"$(report_value whole-2 "d['memory']['devices'][0]['live_at_end_bytes']")" \
	"$(report_value whole-2 "t['live_at_end_bytes']")"
is "whole: the trace is complete" "$(report_value whole-2 "d['trace']['complete']")" True

compare window --from=+5ms --to=+20ms "$trace"
ok "window: fewer events delivered than read" test \
	"$(report_value window-2 "d['memory']['devices'][0]['allocations']")" -lt \
	"$(report_value window-2 "t['allocations']")"

# cut while written: the last packet of cudatrace_1 partial
cp -r "$trace" "$report_tmp/cut"
size=$(wc -c <"$report_tmp/cut/cudatrace_1")
truncate -s $((size - 300000)) "$report_tmp/cut/cudatrace_1"
compare cut "$report_tmp/cut"
is "cut: reported as incomplete" "$(report_value cut-2 "d['trace']['complete']")" False
ok "cut: the events before the cut are read" test "$(report_value cut-2 "d['trace']['events']")" -gt \
	$((events / 2))

# a corrupt packet inside cudatrace_0: its second packet's magic zeroed
cp -r "$trace" "$report_tmp/corrupt"
printf '\000\000\000\000' |
	dd of="$report_tmp/corrupt/cudatrace_0" bs=1 seek=1048576 conv=notrunc 2>/dev/null
compare corrupt "$report_tmp/corrupt"
is "corrupt: reported as incomplete" "$(report_value corrupt-2 "d['trace']['complete']")" False

# the metadata cut inside its last declaration: every group's view has it,
# and the report says so once
cp -r "$trace" "$report_tmp/metadata-cut"
size=$(wc -c <"$trace/metadata")
head -c $((size - 40)) "$trace/metadata" >"$report_tmp/metadata-cut/metadata"
compare metadata-cut "$report_tmp/metadata-cut"
is "metadata-cut: every event read" "$(report_value metadata-cut-2 "d['trace']['events']")" \
	"$events"
is "metadata-cut: the cut said once" \
	"$(report_value metadata-cut-2 "d['trace']['error'].count('metadata of')")" 1

# two traces of a session (per-PID directories), of two hosts
mkdir -p "$report_tmp/session"
cp -r "$trace" "$report_tmp/session/a"
"$report_python" "$report_here/make-ctf.py" bench $((events / 2)) "$report_tmp/session/b" \
	>/dev/null || tap_fail_all "make-ctf.py makes the second trace"
sed -i 's/hostname = "synthetic"/hostname = "synthetiq"/' "$report_tmp/session/b/metadata"
compare session "$report_tmp/session"
is "session: every event of both read once" "$(report_value session-2 "d['trace']['events']")" \
	$((events + events / 2))

# a trace whose metadata cannot be read, beside a good one: the graph of
# each group finds it refused, and the warning says so once
mkdir -p "$report_tmp/refused"
cp -r "$trace" "$report_tmp/refused/good"
cp -r "$trace" "$report_tmp/refused/bad"
printf '/* CTF 1.8 */\ntrace { major = 1; minor = 8; cut here' >"$report_tmp/refused/bad/metadata"
compare refused "$report_tmp/refused"
is "refused: the good trace read" "$(report_value refused-2 "d['trace']['events']")" "$events"
is "refused: one graph says the trace is skipped" \
	"$(grep -c "skipping '.*/refused/bad'" "$report_tmp/refused-1.err")" 1
is "refused: two groups say it once too" \
	"$(grep -c "skipping '.*/refused/bad'" "$report_tmp/refused-2.err")" 1

# no views can be made (TMPDIR missing): one graph reads the trace, with a warning
saved_tmpdir=${TMPDIR-}
TMPDIR=$report_tmp/missing
export TMPDIR
run_groups no-views 2 "$trace"
if [ -n "$saved_tmpdir" ]; then TMPDIR=$saved_tmpdir; else unset TMPDIR; fi
report_exits no-views 0
report_says no-views "decoding the trace on one thread"
cp "$report_tmp/whole-1.out" "$report_tmp/no-views-1.out"
cp "$report_tmp/no-views.out" "$report_tmp/no-views-2.out"
same_report no-views

# two processes, a stream file each, their calls alternating: in two and
# three groups each event is still its own process's (a group's events say
# only when their process changed from the group's previous event, and the
# groups' events interleave), as in one graph and in the truth
"$report_python" "$report_here/make-ctf.py" processes "$report_tmp/processes" \
	>"$report_tmp/processes.truth" || tap_fail_all "make-ctf.py makes the processes trace"
for groups in 1 2 3; do
	run_groups "processes-$groups" "$groups" "$report_tmp/processes"
	report_exits "processes-$groups" 0
	is "processes, $groups group(s): each process's allocations, frees, peak and end" \
		"$("$report_python" - "$report_tmp/processes-$groups.out" "$report_tmp/processes.truth" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))
keys = ("allocations", "frees", "peak_bytes", "live_at_end_bytes", "unknown_frees")
got = {str(x["pid"]): dict(process=x["process"], **{k: x[k] for k in keys})
       for x in d["memory"]["devices"]}
print("same" if got == truth else "got %s, truth %s" % (got, truth))
PY
)" same
done

# every file of a small two-file trace cut, bit-flipped and zeroed
# (damage.py), read in two groups: each run ends in bounded time with a
# report that says what was lost, or a message, never a crash
"$report_python" "$report_here/make-ctf.py" bench 3000 "$report_tmp/small" >/dev/null ||
	tap_fail_all "make-ctf.py makes the small trace"
CUDATRACE_DECODE_GROUPS=2
export CUDATRACE_DECODE_GROUPS
"$report_python" "$report_here/damage.py" "$report_cmd" "$report_tmp/small" \
	"$report_tmp/work-small" 1 >"$report_tmp/small.tap" 2>&1
unset CUDATRACE_DECODE_GROUPS
tap_relay damaged "$report_tmp/small.tap"

tap_done
