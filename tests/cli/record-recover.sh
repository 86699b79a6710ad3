#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A session daemon whose consumer daemon died answers but can record
# nothing, and never starts another consumer. `cudatrace record` sees it
# (the consumer's health socket no longer answers), says so, and records
# with a session daemon of cudatrace's own, private to the user, which it
# starts (or finds, or restarts when its consumer died too); the program
# runs as it would have, in the mount namespace and directory it was
# started in, and is traced whole.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon

# One record, so that the daemon starts its consumer daemon.
cli_record first -o "$lttng_tmp/first" -- "$trace_python" "$cli_workload" --steps 1
cli_status_is "first: recorded with the test's daemon" 0
consumer=$(cli_consumer_pids)
ok "the test's daemon has a consumer daemon" test -n "$consumer"
# shellcheck disable=SC2086
kill -KILL $consumer

# ---- the consumer is dead when record starts: a daemon of cudatrace's own
here_ns=$(readlink /proc/self/ns/mnt)
mkdir -p "$lttng_tmp/cwd"
(cd "$lttng_tmp/cwd" && CUDASIM_LEDGER="$lttng_tmp/dead.ledger" "$cli_bin" record \
	-o "$lttng_tmp/dead" -- "$trace_python" "$cli_workload" --steps 2 --leak \
	>"$lttng_tmp/dead.out" 2>"$lttng_tmp/dead.err")
is "dead consumer: record exits with the program's status" "$?" 0
ok "dead consumer: says what it found and what it did" \
	cli_has dead "the LTTng session daemon cannot record any more: its consumer daemon \\(lttng-consumerd\\) died; started cudatrace's own session daemon, in .*/cudatrace/sessiond"
private=$(cli_private_daemon_pid)
ok "dead consumer: cudatrace's own daemon runs ($private)" kill -0 "${private:-0}"
ok "dead consumer: it is not the test's daemon" test "${private:-0}" != "$lttng_daemon_pid"
cli_trace_checked dead "dead consumer: the trace reads back"
CUDASIM_LEDGER="$lttng_tmp/where.ledger" "$cli_bin" record -o "$lttng_tmp/where" -- \
	/bin/sh -c 'readlink /proc/self/ns/mnt; pwd; cat /var/run/lttng/lttng-sessiond.pid' \
	>"$lttng_tmp/where.out" 2>"$lttng_tmp/where.err"
is "the program runs in the mount namespace record was started in" \
	"$(sed -n 1p "$lttng_tmp/where.out")" "$here_ns"
is "and in the directory it was started in" "$(sed -n 2p "$lttng_tmp/where.out")" "$PWD"
is "and sees the run directory of the test's daemon, not of cudatrace's own" \
	"$(sed -n 3p "$lttng_tmp/where.out")" "$lttng_daemon_pid"

# ---- the next record finds it
cli_record next -o "$lttng_tmp/next" -- "$trace_python" "$cli_workload" --steps 2
cli_status_is "next: record exits with 0" 0
ok "next: uses cudatrace's own daemon" \
	cli_has next "its consumer daemon \\(lttng-consumerd\\) died; using cudatrace's own session daemon, in .*/cudatrace/sessiond\$"
is "next: the same daemon" "$(cli_private_daemon_pid)" "$private"
cli_trace_checked next "next: the trace reads back"

# ---- its consumer dies too: it is restarted
# shellcheck disable=SC2046
kill -KILL $(cli_consumer_pids "$private")
cli_record restart -o "$lttng_tmp/restart" -- "$trace_python" "$cli_workload" --steps 2
cli_status_is "restart: record exits with 0" 0
ok "restart: says it restarted its own daemon" \
	cli_has restart "cudatrace's own session daemon in .* had lost its consumer daemon too: restarting it"
ok "restart: a new daemon runs" test -n "$(cli_private_daemon_pid)" -a "$(cli_private_daemon_pid)" != "$private"
ok "restart: the old one is gone" test ! -d "/proc/$private"
cli_trace_checked restart "restart: the trace reads back"
tap_done
