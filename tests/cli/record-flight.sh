#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record --flight-recorder`: nothing is written while the
# program runs; a snapshot is written when an allocation first fails and
# another when the program ends; the snapshots read back and hold what the
# ledger says; with a ring smaller than the run, only the newest events
# are kept; and that snapshot still accounts for the memory allocated
# before its window, from the live set the tracer writes every second in
# this mode.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon

# 1. A run that fails an allocation and exits with 1.
cli_record fail --flight-recorder=4M -o "$lttng_tmp/fail" -- \
	"$trace_python" "$cli_workload" --steps 3 --leak --fail-alloc --exit 1
cli_status_is "record exits with the program's status" 1
ok "record says it is a flight recorder" cli_has fail "flight recorder"
ok "the notes say so too" grep -qx 'mode=snapshot' "$lttng_tmp/fail/cudatrace.info"
snaps=$(ls -d "$lttng_tmp"/fail/snapshot-* 2>/dev/null | wc -l)
is "two snapshots: at the failure and at the end" "$snaps" 2
first=$(ls -d "$lttng_tmp"/fail/snapshot-*-0 2>/dev/null)
last=$(ls -d "$lttng_tmp"/fail/snapshot-*-1 2>/dev/null)
if [ -n "$first" ] && trace_read first "$first"; then
	tap_result 0 "the snapshot taken at the failure reads back"
	is "it holds the failed allocation" "$(trace_count first mem_alloc_failed)" 1
else
	tap_result 1 "the snapshot taken at the failure reads back"
	tap_result 1 "it holds the failed allocation (no snapshot at the failure)"
fi
if [ -n "$last" ] && trace_read last "$last"; then
	tap_result 0 "the snapshot taken at the end reads back"
	cp "$lttng_tmp/fail.ledger" "$lttng_tmp/last.ledger"
	trace_check last --checks readable,ops,live
else
	tap_result 1 "the snapshot taken at the end reads back"
fi
ok "the short report reads the newest snapshot" cli_has fail "Allocation failures: 1"
ok "the allocation kept by the script is counted once" \
	cli_has fail "3.00 MiB still allocated at the end"
# `cudatrace report` on the whole output reads the newest snapshot alone:
# the same events as that snapshot, not the sum of both.
report_events() {
	"$cli_bin" report --format json "$1" 2>/dev/null |
		"$trace_python" -c 'import json, sys; print(json.load(sys.stdin)["trace"]["events"])'
}
if [ -n "$last" ]; then
	is "cudatrace report of the output counts the newest snapshot's events once" \
		"$(report_events "$lttng_tmp/fail")" "$(report_events "$last")"
else
	tap_result 1 "cudatrace report of the output counts the newest snapshot's events once (no snapshot at the end)"
fi
ok "cudatrace list shows the flight recorder's trace" \
	sh -c "'$cli_bin' list '$lttng_tmp' | grep -q '^fail .*exit 1'"

# 2. A ring smaller than the run keeps the newest events only.
cli_record small --flight-recorder=64K -o "$lttng_tmp/small" -- \
	"$trace_python" "$cli_workload" --steps 400
cli_status_is "small ring: record exits with the program's status" 0
snap=$(ls -d "$lttng_tmp"/small/snapshot-* 2>/dev/null | head -n 1)
if [ -n "$snap" ] && trace_read small "$snap"; then
	tap_result 0 "small ring: the snapshot reads back"
	allocs=$(trace_count small mem_alloc)
	ledger=$(grep -c ' op=alloc ' "$lttng_tmp/small.ledger" || :)
	ok "small ring: it keeps fewer allocations ($allocs) than the run made ($ledger)" \
		test "$allocs" -lt "$ledger"
	events=$(grep -c '^event=cudatrace:' "$lttng_tmp/small.events" || :)
	ok "small ring: but the newest events ($events)" test "$events" -gt 0
else
	tap_result 1 "small ring: the snapshot reads back"
	tap_result 1 "small ring: it keeps fewer allocations than the run made (no snapshot)"
	tap_result 1 "small ring: but the newest events (no snapshot)"
fi

# 3. The live set: the program allocates, runs 3000 memsets on one CPU
# (the ring wraps many times over: the allocations' own events are lost)
# and waits on a FIFO for two seconds, while the tracer dumps what it
# holds every second, as record asks of it. The snapshot's dump is the
# ledger's live set at that point.
trace_require_program accounting
unset CUDATRACE_STATEDUMP_PERIOD_MS
rm -f "$lttng_tmp/live.fifo" "$lttng_tmp/live.ledger"
mkfifo "$lttng_tmp/live.fifo"
CUDASIM_LEDGER="$lttng_tmp/live.ledger" timeout 120 "$cli_bin" record --flight-recorder=64K \
	-o "$lttng_tmp/live" -- taskset -c 0 "$trace_cmd" flight "$lttng_tmp/live.fifo" 3000 \
	>"$lttng_tmp/live.out" 2>"$lttng_tmp/live.err" &
live_pid=$!
if cli_wait_for "$lttng_tmp/live.out" '^ready' $live_pid; then
	tap_result 0 "live set: the program allocated, ran its memsets and waits"
	cp "$lttng_tmp/live.ledger" "$lttng_tmp/live.dump-ledger"
	sleep 2.5
else
	tap_result 1 "live set: the program allocated, ran its memsets and waits"
fi
echo go >"$lttng_tmp/live.fifo" &
live_status=0
wait $live_pid || live_status=$?
is "live set: record exits with the program's status" "$live_status" 0
snap=$(ls -d "$lttng_tmp"/live/snapshot-* 2>/dev/null | tail -n 1)
if [ -n "$snap" ] && trace_read live "$snap"; then
	trace_check live --checks statedump --dump-ledger "$lttng_tmp/live.dump-ledger" \
		--dump-reason periodic
	first=$(sed -n 's/.* op=alloc .* corr=\([0-9]*\).*/\1/p' "$lttng_tmp/live.ledger" | head -n 1)
	is "live set: the snapshot lost the first allocation's mem_alloc (correlation id $first)" \
		"$(grep -c "^event=cudatrace:mem_alloc .* correlation_id=$first\( \|$\)" \
			"$lttng_tmp/live.events")" 0
else
	tap_result 1 "live set: the snapshot reads back"
fi
# 4. <<<>>> kernels in a small ring over several seconds: each kernel's
# record names its kernel_shape, and each launch after the first is a
# repeat of the first one's launch_unconfigured, both written once at the
# first launch and overwritten long before the snapshot (12 s of
# launches); the tracer writes each again a second after it last did
# (doc/events.md, kernel_shape and repeat), and the ring holds seconds of
# each channel's events (about 5 s of launches, 4 s of their records,
# which CUPTI hands over each second), so the snapshot still reads the
# runs after that; those before it are counted as unmatched, not lost
# silently.
launch_loop="$trace_builddir/tests/programs/launch-loop"
cli_record shapes --flight-recorder=256K -o "$lttng_tmp/shapes" -- "$launch_loop" 2400 5000
cli_status_is "shapes: record exits with the program's status" 0
snap=$(ls -d "$lttng_tmp"/shapes/snapshot-* 2>/dev/null | tail -n 1)
report_status=0
"$cli_bin" report --format=json -o "$lttng_tmp/shapes.json" "${snap:-$lttng_tmp/none}" \
	2>"$lttng_tmp/shapes.report.err" || report_status=$?
is "shapes: the snapshot's report is made" "$report_status" 0 ||
	sed 's/^/#   /' "$lttng_tmp/shapes.report.err"
shaped=$("$trace_python" -c '
import json, sys
d = json.load(open(sys.argv[1]))
runs = sum(k["count"] for k in d["kernels"])  # its one kernel, named or not
print(runs, d["trace"]["unmatched_gpu_records"])' "$lttng_tmp/shapes.json" 2>/dev/null)
diag "shapes: runs read and records unmatched in the snapshot: ${shaped:-none}"
ok "shapes: the snapshot reads runs whose shape was written again (${shaped%% *} runs)" \
	test "${shaped%% *}" -gt 0 2>/dev/null
# the kernel's name too, written again after each of the tracer's dumps
is "shapes: the kernel is named in the snapshot" "$("$trace_python" -c '
import json, sys
print(sorted(k["name"] for k in json.load(open(sys.argv[1]))["kernels"]))' \
	"$lttng_tmp/shapes.json" 2>/dev/null)" "['nothing(int*)']"
tap_done
