#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Traces, their notes (cudatrace.info) and post-mortems hold command lines
# and program data: under umask 000, whether cudatrace or the test started
# the session daemon, every directory `cudatrace record` leaves is 0700
# and every file 0600 (LTTng's consumer makes its own files 0660, which
# record fixes), a flight recorder's snapshots and a killed program's
# post-mortem included; --trace-dir's parent is made 0700 too, and an
# empty -o directory that existed becomes 0700.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
umask 000
cli_without_daemon

# private DIR TAG: every directory under DIR (and DIR) 0700, every file 0600.
private() {
	find "$1" \( -type d ! -perm 0700 \) -o \( -type f ! -perm 0600 \) \
		-printf '%m %p\n' >"$lttng_tmp/$2.modes"
	if [ -s "$lttng_tmp/$2.modes" ]; then
		diag "$2: not private:"
		head -n 5 "$lttng_tmp/$2.modes" | sed 's/^/#   /'
		return 1
	fi
	[ -n "$(find "$1" -type f -name 'metadata')" ] || {
		diag "$2: no trace in $1"
		return 1
	}
}

# ---- the daemon that cudatrace starts, under umask 000
cli_record started -o "$lttng_tmp/started" -- "$trace_python" "$cli_workload" --steps 2
cli_status_is "started: record exits with the program's status" 0
cli_adopt_daemon || tap_fail_all "record started no session daemon"
ok "started: the trace, cudatrace.info and all LTTng made are private" private "$lttng_tmp/started" started
ok "started: cudatrace.info is there" test -f "$lttng_tmp/started/cudatrace.info"

# ---- a daemon started by the test under umask 000: LTTng makes 0770 and 0660
lttng_daemon_stop
trace_daemon_or_fail
mkdir -p "$lttng_tmp/existing"
chmod 0777 "$lttng_tmp/existing"
cli_record existing -o "$lttng_tmp/existing" -- "$trace_python" "$cli_workload" --steps 2
cli_status_is "existing: record exits with 0" 0
ok "existing: an empty -o directory that existed becomes private, and what is in it" \
	private "$lttng_tmp/existing" existing

cli_record dated --trace-dir "$lttng_tmp/parent/traces" -- "$trace_python" "$cli_workload" --steps 1
cli_status_is "dated: record exits with 0" 0
ok "dated: the --trace-dir parents it made are 0700" \
	test "$(stat -c %a "$lttng_tmp/parent")" = 700 -a "$(stat -c %a "$lttng_tmp/parent/traces")" = 700
ok "dated: the dated trace is private" private "$lttng_tmp/parent/traces" dated

cli_record flight --flight-recorder=1M -o "$lttng_tmp/flight" -- "$trace_python" "$cli_workload" --steps 2
cli_status_is "flight: record exits with 0" 0
ok "flight: the snapshots are private" private "$lttng_tmp/flight" flight
ok "flight: a snapshot was written" test -n "$(ls -d "$lttng_tmp"/flight/snapshot-* 2>/dev/null)"

CUDASIM_LEDGER="$lttng_tmp/killed.ledger" "$cli_bin" record -o "$lttng_tmp/killed" -- \
	"$trace_python" "$cli_workload" --steps 1 --pause \
	>"$lttng_tmp/killed.out" 2>"$lttng_tmp/killed.err" &
rec_pid=$!
cli_wait_for "$lttng_tmp/killed.out" '^paused' $rec_pid
kill -KILL $(cli_children $rec_pid) 2>/dev/null
wait $rec_pid
ok "killed: a post-mortem was written" test -f "$lttng_tmp/killed/postmortem.txt"
ok "killed: the post-mortem and the trace are private" private "$lttng_tmp/killed" killed
tap_done
