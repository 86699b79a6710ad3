#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record --relayd` and `--live`, with a local lttng-relayd on
# the loopback interface of a private network namespace: the trace the
# relay daemon receives holds what the ledger says; a live session is read
# while the program runs by `cudatrace report --live`, whose report ends
# when the session does and agrees with the ledger.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

# A network namespace of our own: the relay daemon's ports are ours alone.
if [ "${CUDATRACE_TEST_NETNS:-}" != 1 ]; then
	command -v ip >/dev/null 2>&1 || tap_fail_all "ip is not installed (Debian: iproute2)"
	command -v unshare >/dev/null 2>&1 || tap_fail_all "unshare is not installed (Debian: util-linux)"
	unshare -n true 2>/dev/null ||
		tap_skip_all "no unshare: cannot create a network namespace (unshare -n)"
	CUDATRACE_TEST_NETNS=1
	export CUDATRACE_TEST_NETNS
	exec unshare -n "${LTTNG_TEST_SHELL:-/bin/sh}" "$0" "$@"
fi
lttng_private_ns "$@"
ip link set lo up || tap_fail_all "the private network namespace brings up its loopback interface"
command -v lttng-relayd >/dev/null 2>&1 ||
	tap_fail_all "lttng-relayd is not installed (Debian: lttng-tools)"
cli_require
cli_with_daemon

relay_pid=""
relay_stop() {
	[ -n "$relay_pid" ] || return 0
	kill -TERM $relay_pid 2>/dev/null
	lttng_reap $relay_pid
	relay_pid=""
}
trap 'relay_stop; lttng_cleanup' EXIT
trap 'relay_stop; lttng_cleanup; exit 130' INT
trap 'relay_stop; lttng_cleanup; exit 143' TERM HUP

mkdir -p "$lttng_tmp/relay"
lttng-relayd -o "$lttng_tmp/relay" >"$lttng_tmp/relayd.log" 2>&1 &
relay_pid=$!
# Ready when it lists sessions on its live port.
tries=0
until babeltrace2 --input-format=lttng-live net://127.0.0.1 >/dev/null 2>&1; do
	tries=$((tries + 1))
	if [ $tries -gt 100 ] || ! kill -0 $relay_pid 2>/dev/null; then
		tap_result 1 "lttng-relayd starts on the loopback interface"
		sed 's/^/#   /' "$lttng_tmp/relayd.log"
		tap_done
	fi
	sleep 0.1
done
tap_result 0 "lttng-relayd starts on the loopback interface"
host=$(hostname)

# 1. Streaming: the relay daemon writes the trace.
cli_record net --relayd net://127.0.0.1 --name net -- "$trace_python" "$cli_workload" --steps 3 --leak
cli_status_is "--relayd: record exits with the program's status" 0
ok "--relayd: record says where the trace went" cli_has net "relay daemon at net://127.0.0.1"
received=$(ls -d "$lttng_tmp/relay/$host"/cudatrace-net-* 2>/dev/null | head -n 1)
ok "--relayd: the relay daemon received the trace" test -n "$received"
if [ -n "$received" ] && trace_read net "$received"; then
	tap_result 0 "--relayd: the received trace reads back"
	trace_check net --checks readable,ops,live
	ok "--relayd: cudatrace report reads it" \
		"$cli_bin" report --format json -o "$lttng_tmp/net.json" "$received"
else
	tap_result 1 "--relayd: the received trace reads back"
fi

# 2. A flight recorder whose snapshots go to the relay daemon.
cli_record fr --flight-recorder=1M --relayd net://127.0.0.1 --name fr -- \
	"$trace_python" "$cli_workload" --steps 2 --fail-alloc
cli_status_is "--flight-recorder --relayd: record exits with the program's status" 0
snaps=$(ls -d "$lttng_tmp/relay/$host"/cudatrace-fr-*/snapshot-* 2>/dev/null | wc -l)
is "--flight-recorder --relayd: the relay daemon received both snapshots" "$snaps" 2

# 3. Live: cudatrace report --live reads the session while the program runs.
live_url="net://127.0.0.1/host/$host/cudatrace-live"
rm -f "$lttng_tmp/ready" "$lttng_tmp/gate"
CUDASIM_LEDGER="$lttng_tmp/live.ledger" "$cli_bin" record --live=100 --name live -- \
	"$trace_python" "$cli_workload" --steps 3 --leak --ready "$lttng_tmp/ready" \
	--gate "$lttng_tmp/gate" >"$lttng_tmp/live.out" 2>"$lttng_tmp/live.err" &
rec_pid=$!
cli_wait_for "$lttng_tmp/live.err" "watch it with" $rec_pid
ok "--live: record prints the URL to watch" cli_has live "cudatrace report --live $live_url"
tries=0
while [ ! -e "$lttng_tmp/ready" ] && [ $tries -lt 300 ]; do
	sleep 0.1
	tries=$((tries + 1))
done
timeout 60 "$cli_bin" report --live "$live_url" --format json -o "$lttng_tmp/live.json" \
	2>"$lttng_tmp/report.err" &
report_pid=$!
# The program starts its work once the viewer is attached.
tries=0
until babeltrace2 --input-format=lttng-live net://127.0.0.1 2>/dev/null |
	grep -q "cudatrace-live .*1 client"; do
	tries=$((tries + 1))
	[ $tries -gt 100 ] && break
	sleep 0.1
done
touch "$lttng_tmp/gate"
status=0
wait $rec_pid || status=$?
is "--live: record exits with the program's status" "$status" 0
status=0
wait $report_pid || status=$?
is "--live: the live report ends with the session" "$status" 0
[ $status = 0 ] || sed 's/^/#   /' "$lttng_tmp/report.err"
if [ -s "$lttng_tmp/live.json" ]; then
	kept=$("$trace_python" -c '
import json, sys
doc = json.load(open(sys.argv[1]))
print(sum(d["live_at_end_bytes"] for d in doc["memory"]["devices"]))' "$lttng_tmp/live.json")
	ledger=$(awk '/ op=alloc / { for (i = 1; i <= NF; i++) if ($i ~ /^size=/) { split($i, kv, "="); live += kv[2] } }
		/ op=free / { for (i = 1; i <= NF; i++) if ($i ~ /^size=/) { split($i, kv, "="); live -= kv[2] } }
		END { print live + 0 }' "$lttng_tmp/live.ledger")
	is "--live: the live report's memory left allocated is the ledger's" "$kept" "$ledger"
else
	tap_result 1 "--live: the live report was written"
fi
tap_done
