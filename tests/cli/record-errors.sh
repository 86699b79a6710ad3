#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Every way `cudatrace record` can fail before or while the program runs:
# each gives one clear message saying what to do and exit status 2 (the
# program not run), leaving no session and no empty trace directory
# behind; when the session daemon dies while the program runs, the
# program's own status comes back and the message says what happened.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_without_daemon

# fails TAG PATTERN ARGS...: record ARGS exits with 2 and says PATTERN.
fails() {
	fails_tag=$1
	fails_pattern=$2
	shift 2
	cli_record "$fails_tag" "$@"
	cli_status_is "$fails_tag: exit status 2" 2
	ok "$fails_tag: says '$fails_pattern'" cli_has "$fails_tag" "$fails_pattern"
}

no_sessions() {
	[ "$(cli_sessions)" = 0 ]
}

# ---- no daemon yet
mkdir -p "$lttng_tmp/emptybin"
cli_status=0
PATH="$lttng_tmp/emptybin" "$cli_bin" record -o "$lttng_tmp/t0" -- /bin/true \
	>"$lttng_tmp/no-lttng.out" 2>"$lttng_tmp/no-lttng.err" || cli_status=$?
is "no-lttng: exit status 2" "$cli_status" 2
ok "no-lttng: says what to install" cli_has no-lttng "LTTng is not installed.*apt install lttng-tools"
ok "no-lttng: no trace directory is left" test ! -e "$lttng_tmp/t0"

LTTNG_SESSIOND_PATH=/bin/false
export LTTNG_SESSIOND_PATH
fails daemon-fails "LTTng session daemon will not start" -o "$lttng_tmp/t1" -- /bin/true
# A duration of its own, so that the check below counts this test's
# daemon only, not another test's sleep.
hang_args="sleep 30.$$"
printf '#!/bin/sh\nexec %s\n' "$hang_args" >"$lttng_tmp/hang-sessiond"
chmod +x "$lttng_tmp/hang-sessiond"
LTTNG_SESSIOND_PATH="$lttng_tmp/hang-sessiond"
fails daemon-hangs "did not get ready within 1 s" --sessiond-timeout=1 -o "$lttng_tmp/t2" -- /bin/true
unset LTTNG_SESSIOND_PATH
hung=$(ps -eo args | grep -c -x -F "$hang_args" || :)
is "daemon-hangs: no stuck daemon is left" "$hung" 0

# ---- usage errors
fails no-command "no command to run"
fails bad-option "unrecognized option" --bogus -- /bin/true
fails bad-subbuf "power of 2" --subbuf-size=3000 -- /bin/true
fails bad-activity "--activity=foo" --activity=foo -- /bin/true
fails bad-live "--live=0" --live=0 -- /bin/true
fails o-and-trace-dir "exclude each other" -o a --trace-dir b -- /bin/true
fails flight-live "cannot be read live" --flight-recorder --live -- /bin/true
fails flight-blocking "cannot be --blocking" --flight-recorder --blocking -- /bin/true
fails relayd-and-o "leave out -o" --relayd net://127.0.0.1 -o a -- /bin/true

# ---- input errors (a daemon from here on)
if ! lttng-sessiond --daemonize --no-kernel >"$lttng_tmp/sessiond.log" 2>&1 || ! cli_adopt_daemon; then
	tap_result 1 "a private lttng-sessiond starts"
	tap_done
fi
fails not-found "no-such-command-xyz: command not found" -- no-such-command-xyz
touch "$lttng_tmp/not-executable"
fails not-executable "permission denied" -- "$lttng_tmp/not-executable"
printf 'garbage\n' >"$lttng_tmp/garbage"
chmod +x "$lttng_tmp/garbage"
fails exec-fails "cannot run .*garbage: Exec format error" -o "$lttng_tmp/t3" -- "$lttng_tmp/garbage"
ok "exec-fails: the session was closed" no_sessions
ok "exec-fails: no trace directory is left" test ! -e "$lttng_tmp/t3"
fails no-library "tracing library /nonexistent/libcudatrace.so .* not there.*--library" \
	--library=/nonexistent/libcudatrace.so -- /bin/true
CUDATRACE_LIB=/nonexistent/lib.so
fails no-library-env "named by CUDATRACE_LIB.*not there" -- /bin/true
CUDATRACE_LIB=$trace_lib
mkdir -p "$lttng_tmp/ro"
mount -t tmpfs -o ro cudatrace-test "$lttng_tmp/ro"
fails read-only-dir "cannot create the trace directory .*Read-only file system: choose a writable" \
	-o "$lttng_tmp/ro/trace" -- /bin/true
fails read-only-parent "Read-only file system" --trace-dir "$lttng_tmp/ro" -- /bin/true
umount "$lttng_tmp/ro"
mkdir -p "$lttng_tmp/full"
touch "$lttng_tmp/full/something"
fails not-empty "is not empty: choose a new directory" -o "$lttng_tmp/full" -- /bin/true
fails not-a-dir "exists and is not a directory" -o "$lttng_tmp/full/something" -- /bin/true
lttng_client create cudatrace-taken --output="$lttng_tmp/taken-by-hand" >/dev/null 2>&1
fails name-taken "the session name is taken: choose another with --name" \
	--name taken -o "$lttng_tmp/t4" -- /bin/true
ok "name-taken: no trace directory is left" test ! -e "$lttng_tmp/t4"
lttng_client destroy cudatrace-taken >/dev/null 2>&1
fails bad-url "relay daemon URL .*not valid" --relayd bogus -- /bin/true
fails no-relayd "cannot reach the relay daemon" --relayd net://127.0.0.1:1:2 -- /bin/true
ok "after all these, no session is left" no_sessions

# ---- the daemon dies while the program runs: the program's status comes back
rm -f "$lttng_tmp/gate"
CUDASIM_LEDGER="$lttng_tmp/dies.ledger" "$cli_bin" record -o "$lttng_tmp/dies" -- \
	"$trace_python" "$cli_workload" --ready "$lttng_tmp/ready" --gate "$lttng_tmp/gate" --exit 5 \
	>"$lttng_tmp/dies.out" 2>"$lttng_tmp/dies.err" &
rec_pid=$!
tries=0
while [ ! -e "$lttng_tmp/ready" ] && [ $tries -lt 300 ] && kill -0 $rec_pid 2>/dev/null; do
	sleep 0.1
	tries=$((tries + 1))
done
lttng_daemon_stop
touch "$lttng_tmp/gate"
status=0
wait $rec_pid || status=$?
is "daemon killed mid-run: record exits with the program's status" "$status" 5
ok "daemon killed mid-run: record says so" cli_has dies "session daemon stopped or failed while python"
ok "daemon killed mid-run: and where the trace is" \
	cli_has dies "the trace keeps what was written until then, in $lttng_tmp/dies"
ok "daemon killed mid-run: said once" test "$(grep -c 'stopped or failed' "$lttng_tmp/dies.err")" = 1
ok "daemon killed mid-run: the trace is said to be incomplete" \
	cli_has dies "the trace is incomplete: it ends about .* where the LTTng session daemon died"
ok "daemon killed mid-run: its notes say so" \
	grep -qx 'incomplete=daemon-died' "$lttng_tmp/dies/cudatrace.info"
tap_done
