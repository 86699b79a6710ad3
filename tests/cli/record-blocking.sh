#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record --blocking[=MS]`: when the buffers are full, an event
# waits for room, up to MS ms, instead of being discarded. With buffers
# far too small for a storm of copies, nothing is discarded and the trace
# holds every operation; with the consumer daemon dead (nobody empties
# the buffers), the program waits a bounded time, never for ever, and runs
# on untraced. Sub-buffers too small for cudatrace's largest event are
# refused: LTTng discards such events whatever the mode.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
storm="$trace_builddir/tests/analyzers/copy-storm"
[ -x "$storm" ] || tap_fail_all "the copy-storm test program is not built ($storm)"

info() {
	sed -n "s/^$2=//p" "$1/cudatrace.info" 2>/dev/null
}

# ---- tiny buffers: nothing is discarded
cli_record tiny --blocking --subbuf-size=4K --num-subbuf=2 -o "$lttng_tmp/tiny" -- "$storm"
cli_status_is "tiny: record exits with the program's status" 0
is "tiny: the trace says nothing was discarded" "$(cli_bt2_discarded "$lttng_tmp/tiny")" 0
is "tiny: cudatrace.info says so too" "$(info "$lttng_tmp/tiny" discarded)" 0
ok "tiny: no warning about discarded events" cli_lacks "$lttng_tmp/tiny.err" "discarded and"
cli_trace_checked tiny "tiny: the trace reads back"

# ---- the consumer dies while the program's events wait for room
CLI_STEPS=3000 CLI_LEAK="" cli_start_gated dead --blocking --subbuf-size=4K --num-subbuf=2 \
	-o "$lttng_tmp/dead"
consumer=$(cli_consumer_pids)
ok "dead: the session daemon has a consumer daemon" test -n "$consumer"
# shellcheck disable=SC2086
kill -KILL $consumer
began=$(date +%s)
cli_open_gate dead
# Bounded: a program that waited for ever is killed here, and fails the test.
(sleep 60 && kill -KILL $rec_pid 2>/dev/null) &
guard=$!
status=0
wait $rec_pid || status=$?
kill $guard 2>/dev/null
took=$(($(date +%s) - began))
is "dead: record exits with the program's status" "$status" 0
ok "dead: the program ran to its end ($took s)" grep -qx 'step 2999' "$lttng_tmp/dead.out"
ok "dead: in bounded time, not for ever (took $took s)" test "$took" -lt 30
ok "dead: record said the consumer died and the program runs on untraced" \
	cli_has dead "consumer daemon .*died while python3 runs: .*; python3 runs on, untraced"
is "dead: the notes say why the trace is cut" "$(info "$lttng_tmp/dead" incomplete)" consumer-died
lttng_daemon_stop
trace_daemon_or_fail

# ---- what --blocking and the sub-buffers accept
cli_fails record blocking-zero "--blocking=0: give the longest an event may wait for room, in ms, from 1 to 60000" \
	--blocking=0 -- /bin/true
cli_fails record blocking-long "--blocking=60001: give" --blocking=60001 -- /bin/true
CUDATRACE_MAX_STRING=4096 cli_fails record event-too-big \
	"--subbuf-size=4096 is smaller than cudatrace's largest event \([0-9]+ bytes.* give --subbuf-size=[0-9]+K or more" \
	--subbuf-size=4K -o "$lttng_tmp/too-big" -- /bin/true
# The size it asks for: the smallest power of two that holds that event.
largest=$(sed -n "s/.*largest event (\([0-9]*\) bytes.*/\1/p" "$lttng_tmp/event-too-big.err")
advised=$(sed -n 's/.* give --subbuf-size=\([0-9]*\)K or more.*/\1/p' "$lttng_tmp/event-too-big.err")
ok "event-too-big: it advises the smallest power of two that holds the event ($advised KiB for $largest bytes)" \
	"$trace_python" -c 'import sys
n, k = int(sys.argv[1]), int(sys.argv[2]) * 1024
sys.exit(not (k >= n and k & (k - 1) == 0 and k // 2 < n))' "${largest:-0}" "${advised:-0}"
ok "event-too-big: no trace directory is left" test ! -e "$lttng_tmp/too-big"
tap_done
