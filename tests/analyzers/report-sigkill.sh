#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The main case: a traced process killed with SIGKILL (the OOM killer, a
# Jupyter restart) midway through a leaking loop. `cudatrace report`
# analyses its trace up to its last event: what was live when it died is
# what the ledger (written as the simulator works) says, at the NVTX range
# and the line of the program where it was allocated. Then the same trace with its stream files cut
# inside a packet, as a copy taken while it was written: still a report,
# marked as cut short, with the allocations up to the cut.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/lttng-session.sh"
. "$here/../lib/trace-run.sh"
. "$here/report-lib.sh"

report_traced_setup "$@"

pause_at=40
# Small packets (one page each), so that the streams have several: the cut
# below lands in the last one and the others show the packet layout.
if ! lttng_session_begin killed 4096 64; then
	tap_result 1 "the LTTng session starts"
	tap_done
fi
(
	LD_LIBRARY_PATH="$trace_simdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	CUDASIM_LEDGER="$lttng_tmp/killed.ledger"
	CUDA_INJECTION64_PATH="$trace_lib"
	NVTX_INJECTION64_PATH="$trace_lib"
	LTTNG_UST_REGISTER_TIMEOUT="${LTTNG_UST_REGISTER_TIMEOUT:-20000}"
	export LD_LIBRARY_PATH CUDASIM_LEDGER CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH \
		LTTNG_UST_REGISTER_TIMEOUT
	exec "$report_workload" pause $pause_at >"$lttng_tmp/killed.out" 2>"$lttng_tmp/killed.err"
) &
pid=$!
tries=0
while [ $tries -lt 600 ] && ! grep -q "^paused after step $pause_at" "$lttng_tmp/killed.out" 2>/dev/null; do
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
	tries=$((tries + 1))
done
ok "the workload paused after step $pause_at" grep -q "^paused" "$lttng_tmp/killed.out"
kill -KILL $pid 2>/dev/null
status=0
{ wait $pid; } 2>/dev/null || status=$?
is "the workload died of SIGKILL" "$status" 137
lttng_session_end killed

report_run killed --format=json "$lttng_trace"
report_exits killed 0
"$report_python" "$report_here/check-memory-report.py" ledger "$lttng_tmp/killed.ledger" \
	"$report_tmp/killed.out" --leak-site "$report_leak_site" --growing train/step \
	>"$report_tmp/killed.tap" 2>&1
tap_relay killed "$report_tmp/killed.tap"
report_run killed-text "$lttng_trace"
report_exits killed-text 0
ok "text: names the site of what was live at the death" \
	grep -qF "$report_leak_site" "$report_tmp/killed-text.out"

# The same trace, each stream file cut in the middle of its last packet.
cp -r "$lttng_trace" "$report_tmp/cut"
find "$report_tmp/cut" -name 'cudatrace_*' -type f | while read -r stream; do
	size=$(wc -c <"$stream")
	if [ "$size" -gt 4096 ]; then
		truncate -s $((size - 1000)) "$stream"
	fi
done
rm -rf "$report_tmp/cut"/ust/*/*/*/index "$report_tmp/cut"/ust/*/*/index 2>/dev/null
report_run_damaged cut --format=json "$report_tmp/cut"
report_exits cut 0
report_says cut "partial packet"
field() {
	"$report_python" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" \
		"$report_tmp/$1.out" 2>/dev/null
}
is "the cut trace: reported as cut short" "$(field cut "d['trace']['complete']")" False
ok "the cut trace: leaks up to the cut are found" \
	test "$(field cut "d['memory']['devices'][0]['leak_count']")" -ge 1
tap_done
