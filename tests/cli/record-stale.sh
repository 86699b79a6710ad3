#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Stale sessions: a `cudatrace record` killed with SIGKILL leaves its
# tracing session in the daemon. The next record finds it (name prefix and
# pid file), writes a flight recorder's snapshot first, closes it, says so
# and where its trace is, and marks the trace's notes; the sessions of
# records that are still running are left alone.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon

# kill_record: SIGKILL to record alone, then to the script it left.
kill_record() {
	kill -KILL $rec_pid
	wait $rec_pid 2>/dev/null
	[ -n "$script_pid" ] && kill -KILL $script_pid 2>/dev/null
	return 0
}

# Three records at once (each one's cleanup leaves the others alone), then
# two of them die.
cli_start_paused local -o "$lttng_tmp/local"
local_rec=$rec_pid
local_script=$script_pid
cli_start_paused flight --flight-recorder=1M -o "$lttng_tmp/flight"
flight_rec=$rec_pid
flight_script=$script_pid
cli_start_paused alive -o "$lttng_tmp/alive"
alive_rec=$rec_pid
alive_script=$script_pid
is "three sessions run" "$(cli_sessions)" 3
rec_pid=$local_rec script_pid=$local_script kill_record
rec_pid=$flight_rec script_pid=$flight_script kill_record
is "two of them are left behind" "$(cli_sessions)" 3
ok "the flight recorder has written nothing yet" test -z "$(ls -d "$lttng_tmp"/flight/snapshot-* 2>/dev/null)"

cli_record next -o "$lttng_tmp/next" -- "$trace_python" "$cli_workload" --steps 1
cli_status_is "the next record runs" 0
ok "it closed the local session and says where its trace is" \
	cli_has next "closed the session cudatrace-.* left by a cudatrace record that died \\(pid $local_rec\\); its trace is in $lttng_tmp/local"
ok "it closed the flight recorder's session" \
	cli_has next "closed the session cudatrace-.* \\(pid $flight_rec\\); its trace is in $lttng_tmp/flight"
ok "it left the running record's session alone" cli_lacks "$lttng_tmp/next.err" "pid $alive_rec"
is "only the running record's session is left" "$(cli_sessions)" 1
ok "the stale trace's notes say its recorder died" \
	grep -qx 'end=abandoned' "$lttng_tmp/local/cudatrace.info"
cli_trace_checked local "the stale local trace reads back"
snap=$(ls -d "$lttng_tmp"/flight/snapshot-* 2>/dev/null | head -n 1)
ok "the flight recorder's snapshot was written before closing" test -n "$snap"
if [ -n "$snap" ] && trace_read flight "$snap"; then
	tap_result 0 "the snapshot reads back"
	trace_check flight --checks ops,live
else
	tap_result 1 "the snapshot reads back"
fi
ok "no pid file is left for the closed sessions" \
	test "$(ls /var/run/lttng/cudatrace | wc -l)" = 1

# The running record ends normally.
kill -KILL $alive_script
status=0
wait $alive_rec || status=$?
is "the running record ends with its script (128+9)" "$status" 137
# Records running at the same time each hold their own program alone.
if trace_read alive "$lttng_tmp/alive"; then
	pids=$(sed -n 's/^event=cudatrace:.* vpid=\([0-9]*\) .*/\1/p' "$lttng_tmp/alive.events" |
		sort -u | tr '\n' ' ')
	is "the running record's trace holds its script alone" "$pids" "$alive_script "
	# lttng-ust writes a process's statedump as the process registers,
	# before its cudatrace session context exists, so the statedump is
	# enabled unfiltered (cudatrace-record(1)): another process's may be
	# there, and nothing else of it.
	others=$(grep -v "^event=lttng_ust_statedump:" "$lttng_tmp/alive.events" |
		sed -n 's/.* vpid=\([0-9]*\) .*/\1/p' | sort -u | tr '\n' ' ')
	is "... and of other processes, at most their statedump" "$others" "$alive_script "
else
	tap_result 1 "the running record's trace reads back"
fi
is "no session is left" "$(cli_sessions)" 0
ok "no pid file is left" test -z "$(ls /var/run/lttng/cudatrace)"
tap_done
