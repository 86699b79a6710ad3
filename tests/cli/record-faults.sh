#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record` under faults of LTTng while the program runs: the
# program comes first (it runs on, its status comes back), the trace keeps
# what was written and stays readable, and record tells the truth about
# it. Each fault is made in the test's own namespace, on daemons the test
# started, by pid.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon

# bt2_events DIR: the number of events babeltrace2 reads in DIR, or
# "error: ..." when it cannot read it.
bt2_events() {
	"$trace_python_bt2" - "$1" <<'PY'
import sys, bt2
try:
    n = sum(1 for m in bt2.TraceCollectionMessageIterator(sys.argv[1])
            if type(m) is bt2._EventMessageConst)
except Exception as e:
    print("error: %s" % str(e).splitlines()[0])
    sys.exit(0)
print(n)
PY
}

# info DIR KEY: KEY's value in the cudatrace.info of the trace in DIR.
info() {
	sed -n "s/^$2=//p" "$1/cudatrace.info" 2>/dev/null
}

# named_paths_exist TAG: every absolute path record's messages name exists.
named_paths_exist() {
	grep '^cudatrace record:' "$lttng_tmp/$1.err" | grep -oE '(^| )/[^ ;:,()]*' |
		sed 's/^ //; s/[.]$//' |
		while read -r named; do
			[ -e "$named" ] && continue
			diag "$1: names $named, which does not exist"
			return 1
		done
}

# incomplete DIR REASON: the notes of the trace in DIR say it is incomplete, for REASON.
incomplete() {
	[ "$(info "$1" complete)" = false ] && [ "$(info "$1" incomplete)" = "$2" ] && return 0
	diag "$1: cudatrace.info says complete=$(info "$1" complete) incomplete=$(info "$1" incomplete)"
	return 1
}

# wait_written DIR: up to 10 s for DIR to hold metadata and a packet of events.
wait_written() {
	wait_tries=0
	while [ $wait_tries -lt 100 ]; do
		[ -n "$(find "$1" -name metadata -size +0 2>/dev/null)" ] &&
			[ -n "$(find "$1" -name 'cudatrace_*' ! -name '*.idx' -size +0 2>/dev/null)" ] &&
			return 0
		sleep 0.1
		wait_tries=$((wait_tries + 1))
	done
	return 1
}

# wait_metadata DIR: up to 10 s for DIR to hold a non-empty metadata file.
wait_metadata() {
	wait_tries=0
	while [ $wait_tries -lt 100 ]; do
		[ -n "$(find "$1" -name metadata -size +0 2>/dev/null)" ] && return 0
		sleep 0.1
		wait_tries=$((wait_tries + 1))
	done
	return 1
}

# ---- the metadata is on disk while the program runs, not only at the end
cli_start_gated early -o "$lttng_tmp/early"
ok "early: the metadata is written while the program runs" wait_metadata "$lttng_tmp/early"
sleep 1.2 # one switch of the data's sub-buffers
events=$(bt2_events "$lttng_tmp/early")
ok "early: the trace reads back while it is recorded ($events events)" test "${events:-0}" -gt 0 2>/dev/null
cli_open_gate early
status=0
wait $rec_pid || status=$?
is "early: record exits with the program's status" "$status" 0
is "early: the notes say the trace is complete" "$(info "$lttng_tmp/early" complete)" true

# ---- the consumer daemon dies while the program runs
cli_start_gated consumer -o "$lttng_tmp/consumer"
sleep 1.5 # the first events reach the disk
consumer=$(cli_consumer_pids)
ok "consumer: the session daemon has a consumer daemon" test -n "$consumer"
# shellcheck disable=SC2086
kill -KILL $consumer
ok "consumer: record says so while the program runs, once" \
	cli_wait_for "$lttng_tmp/consumer.err" "consumer daemon .*died while python3 runs: the trace keeps what was written until then, in $lttng_tmp/consumer; python3 runs on, untraced" $rec_pid
cli_open_gate consumer
status=0
wait $rec_pid || status=$?
is "consumer: record exits with the program's status" "$status" 0
is "consumer: the fault is said once" "$(grep -c 'consumer daemon (lttng-consumerd).*died while' "$lttng_tmp/consumer.err")" 1
ok "consumer: and the trace is said to be incomplete" cli_has consumer "the trace is incomplete: it ends about .* where LTTng's consumer daemon died"
ok "consumer: the notes say so" incomplete "$lttng_tmp/consumer" consumer-died
ok "consumer: the summary gives what was live when the trace was cut, not at the end" \
	cli_has consumer "still allocated when the trace was cut|No GPU memory was allocated"
ok "consumer: it does not speak of the program's end" \
	cli_lacks "$lttng_tmp/consumer.err" "still allocated at the end"
"$cli_bin" report --format json -o "$lttng_tmp/consumer.json" "$lttng_tmp/consumer" \
	2>"$lttng_tmp/consumer-report.err"
is "consumer: cudatrace report says the trace is incomplete, and why" \
	"$("$trace_python" -c 'import json, sys
t = json.load(open(sys.argv[1]))["trace"]
print(t["complete"], "consumer daemon died" in (t["error"] or ""))' "$lttng_tmp/consumer.json")" \
	"False True"
ok "consumer: and warns of it" \
	grep -q "warning: the trace in .* was cut before .* ended: LTTng's consumer daemon died" \
	"$lttng_tmp/consumer-report.err"
events=$(bt2_events "$lttng_tmp/consumer")
ok "consumer: what was written reads back ($events events)" test "${events:-0}" -gt 0 2>/dev/null
ok "consumer: no message names a path that is not there" named_paths_exist consumer
is "consumer: no session is left in the daemon" "$(cli_sessions)" 0
"$cli_bin" list "$lttng_tmp/consumer" >"$lttng_tmp/consumer.list" 2>&1
ok "consumer: cudatrace list says the trace is cut, and why" \
	grep -q 'exit 0, trace cut (consumer-died)$' "$lttng_tmp/consumer.list"
# The daemon cannot record any more: a fresh one for what follows.
lttng_daemon_stop
trace_daemon_or_fail

# ---- the trace fills its file system
mkdir -p "$lttng_tmp/small"
mount -t tmpfs -o size=4m cudatrace-test "$lttng_tmp/small"
cli_record full --subbuf-size=16K --num-subbuf=4 -o "$lttng_tmp/small/full" -- \
	"$trace_python" "$cli_workload" --steps 20000
cli_status_is "full: record exits with the program's status" 0
ok "full: record says the file system is full" cli_has full "the file system of $lttng_tmp/small/full is full: the trace keeps what was written until then"
ok "full: and that the trace is incomplete" cli_has full "the trace is incomplete: .* where the file system filled up"
ok "full: the notes say so" incomplete "$lttng_tmp/small/full" disk-full
events=$(bt2_events "$lttng_tmp/small/full")
ok "full: the trace reads back whole up to the cut ($events events)" test "${events:-0}" -gt 1000 2>/dev/null
ok "full: no message names a path that is not there" named_paths_exist full
umount "$lttng_tmp/small"

# ---- another file fills the trace's file system
mount -t tmpfs -o size=4m cudatrace-test "$lttng_tmp/small"
cli_start_gated filled --subbuf-size=16K --num-subbuf=4 -o "$lttng_tmp/small/filled"
ok "filled: the first events are on disk" wait_written "$lttng_tmp/small/filled"
head -c 8M /dev/zero >"$lttng_tmp/small/filler" 2>/dev/null
ok "filled: record says the file system is full, while the program runs" \
	cli_wait_for "$lttng_tmp/filled.err" "the file system of $lttng_tmp/small/filled is full: .*; python3 runs on, untraced" $rec_pid
cli_open_gate filled
status=0
wait $rec_pid || status=$?
is "filled: record exits with the program's status" "$status" 0
ok "filled: the notes say why the trace is cut, on the full disk" incomplete "$lttng_tmp/small/filled" disk-full
events=$(bt2_events "$lttng_tmp/small/filled")
ok "filled: what was written reads back ($events events)" test "${events:-0}" -gt 0 2>/dev/null
ok "filled: no message names a path that is not there" named_paths_exist filled
umount "$lttng_tmp/small"

# ---- another file leaves less room than a packet: LTTng writes part of one
mount -t tmpfs -o size=4m cudatrace-test "$lttng_tmp/small"
CLI_STEPS=4000 CLI_LEAK="" cli_start_gated partial --subbuf-size=16K --num-subbuf=4 -o "$lttng_tmp/small/partial"
ok "partial: the first events are on disk" wait_written "$lttng_tmp/small/partial"
# While the program works (16 KiB packets, one after another), room for
# one page is left: LTTng's next packet does not fit.
cli_open_gate partial
cli_wait_for "$lttng_tmp/partial.out" '^step 300$' $rec_pid
room=$(df -B1 --output=avail "$lttng_tmp/small" | tail -n 1)
head -c $((room - 4096)) /dev/zero >"$lttng_tmp/small/filler" 2>/dev/null
status=0
wait $rec_pid || status=$?
is "partial: record exits with the program's status" "$status" 0
ok "partial: the notes say so" incomplete "$lttng_tmp/small/partial" disk-full
# Whether LTTng wrote part of a packet depends on its timing: when it did,
# the part is removed, and said.
if [ -n "$(info "$lttng_tmp/small/partial" partial_bytes)" ]; then
	ok "partial: says the packet cut short could not be kept" \
		cli_has partial "the trace is incomplete: .* where the file system filled up; the packet LTTng was writing then \([0-9]* bytes\) could not be kept"
else
	ok "partial: no packet was cut short, and none is said to be" \
		cli_lacks "$lttng_tmp/partial.err" "could not be kept"
fi
events=$(bt2_events "$lttng_tmp/small/partial")
ok "partial: the rest reads back without an error ($events events)" test "${events:-0}" -gt 0 2>/dev/null
umount "$lttng_tmp/small"

# ---- no room at all: refused before the program runs
mount -t tmpfs -o size=1m cudatrace-test "$lttng_tmp/small"
cli_record tiny -o "$lttng_tmp/small/tiny" -- "$trace_python" "$cli_workload" --steps 1
cli_status_is "tiny: exit status 2" 2
ok "tiny: says how much room a trace needs" cli_has tiny "the file system of $lttng_tmp/small/tiny has .* MiB free: a trace there needs .* MiB"
ok "tiny: the program did not run" test ! -e "$lttng_tmp/tiny.ledger"
ok "tiny: no trace directory is left" test ! -e "$lttng_tmp/small/tiny"
umount "$lttng_tmp/small"
tap_done
