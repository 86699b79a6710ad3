#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A `cudatrace record` killed with SIGKILL while its program runs leaves
# its session recording that program. The next record leaves the session
# alone, says so, and the program's later work is still recorded; once the
# program has ended, a record closes the session, and the trace's notes
# say the recorder died and that the trace is complete. When the session
# daemon goes away before the session is closed, the trace is cut: its
# notes say so.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon

info() {
	sed -n "s/^$2=//p" "$1/cudatrace.info" 2>/dev/null
}

# gone PID: the process has ended (a zombie not yet reaped included).
gone() {
	case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) in
	'' | Z | X) return 0 ;;
	esac
	return 1
}

# wait_gone PID: up to 60 s for it to end.
wait_gone() {
	tries=0
	while ! gone "$1" && [ $tries -lt 600 ]; do
		sleep 0.1
		tries=$((tries + 1))
	done
	gone "$1"
}

# ---- the recorder dies, its program goes on
cli_start_gated orphan -o "$lttng_tmp/orphan"
orphan_rec=$rec_pid
orphan_prog=$(cli_children $rec_pid)
kill -KILL $orphan_rec
wait $orphan_rec 2>/dev/null
ok "orphan: the program outlives its recorder" test -n "$orphan_prog" -a ! "$(gone "$orphan_prog" && echo gone)"

cli_record while -o "$lttng_tmp/while" -- "$trace_python" "$cli_workload" --steps 1
cli_status_is "while: the next record runs" 0
ok "while: it leaves the orphan's session alone, and says why" \
	cli_has while "left the session cudatrace-.* of a cudatrace record that died \\(pid $orphan_rec\\) alone: it still records its program \\(pid $orphan_prog\\)"
ok "while: it did not close it" cli_lacks "$lttng_tmp/while.err" "closed the session"
is "while: the orphan's session is still there" "$(cli_sessions)" 1
is "while: the orphan's trace is not marked" "$(info "$lttng_tmp/orphan" end)" running

# The program does its work now, its recorder dead: it is still recorded.
cli_open_gate orphan
ok "orphan: the program ended" wait_gone "$orphan_prog"

cli_record after -o "$lttng_tmp/after" -- "$trace_python" "$cli_workload" --steps 1
cli_status_is "after: the next record runs" 0
ok "after: it closes the orphan's session, now that its program is gone" \
	cli_has after "closed the session cudatrace-.* left by a cudatrace record that died \\(pid $orphan_rec\\); its trace is in $lttng_tmp/orphan"
is "after: no session is left" "$(cli_sessions)" 0
is "after: the notes say its recorder died" "$(info "$lttng_tmp/orphan" end)" abandoned
is "after: and that the trace is complete" "$(info "$lttng_tmp/orphan" complete)" true
# The ledger holds what the program did after its recorder died: all of it is in the trace.
cli_trace_checked orphan "the orphan's trace reads back, with all its program did"

# ---- the daemon goes away before the session is closed: the trace is cut
cli_start_gated lost -o "$lttng_tmp/lost"
lost_rec=$rec_pid
lost_prog=$(cli_children $rec_pid)
kill -KILL $lost_rec
wait $lost_rec 2>/dev/null
lttng_daemon_stop
cli_open_gate lost
ok "lost: the program ended" wait_gone "$lost_prog"
trace_daemon_or_fail
cli_record later -o "$lttng_tmp/later" -- "$trace_python" "$cli_workload" --steps 1
cli_status_is "later: the next record runs" 0
is "later: the lost session's notes say its recorder died" "$(info "$lttng_tmp/lost" end)" abandoned
is "later: and that the trace is cut, and why" \
	"$(info "$lttng_tmp/lost" complete) $(info "$lttng_tmp/lost" incomplete)" "false session-lost"
ok "later: no pid file is left for it" test -z "$(ls /var/run/lttng/cudatrace 2>/dev/null)"
tap_done
