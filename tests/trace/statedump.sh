#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The live set (doc/events.md, "The live set"), for traces whose window
# starts after allocations were made:
#
#   late-*    a session started while the program runs, its allocations
#             made and the program waiting (tests/programs/accounting
#             wait): the session's statedump (reason session_start) holds
#             the ledger's live set at that point, and with it the trace
#             accounts for what the program does next (every operation
#             after the dump one event, the dump's live bytes and the
#             deltas after it end as the ledger, no free of an address the
#             trace does not hold); in both nested modes
#   flight    a snapshot-mode session whose small ring buffer wraps many
#             times (accounting flight, on one CPU), with
#             CUDATRACE_STATEDUMP_PERIOD_MS: the snapshot has lost the
#             allocations' own events, and holds a complete periodic dump
#             whose live set is the ledger's

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_program accounting
program=$trace_cmd
command -v taskset >/dev/null 2>&1 || tap_fail_all "taskset is not installed (Debian: util-linux)"
trace_daemon_or_fail

# start_waiting TAG ARGS...: the program traced in the background, waiting
# on $lttng_tmp/TAG.fifo once it printed "ready"; its pid in $waiting_pid.
start_waiting() {
	tag=$1
	shift
	rm -f "$lttng_tmp/$tag.fifo" "$lttng_tmp/$tag.ledger"
	mkfifo "$lttng_tmp/$tag.fifo" || return 1
	(
		LD_LIBRARY_PATH="$trace_simdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		CUDASIM_LEDGER="$lttng_tmp/$tag.ledger"
		CUDA_INJECTION64_PATH="$trace_lib"
		LTTNG_UST_REGISTER_TIMEOUT="${LTTNG_UST_REGISTER_TIMEOUT:-20000}"
		export LD_LIBRARY_PATH CUDASIM_LEDGER CUDA_INJECTION64_PATH LTTNG_UST_REGISTER_TIMEOUT
		exec "$@" >"$lttng_tmp/$tag.out" 2>"$lttng_tmp/$tag.err"
	) &
	waiting_pid=$!
	tries=0
	while [ $tries -lt 600 ]; do
		grep -q "^ready" "$lttng_tmp/$tag.out" 2>/dev/null && return 0
		kill -0 "$waiting_pid" 2>/dev/null || return 1
		sleep 0.1
		tries=$((tries + 1))
	done
	return 1
}

# go_on TAG: let the waiting program go on, and wait for it; its status in
# $trace_status.
go_on() {
	echo go >"$lttng_tmp/$1.fifo"
	trace_status=0
	wait "$waiting_pid" || trace_status=$?
}

# ---------------------------------------------------------- late session
CUDATRACE_SESSION_POLL_MS=50
export CUDATRACE_SESSION_POLL_MS
for mode in 0 1; do
	tag="late-nested$mode"
	CUDASIM_NESTED_DRIVER_CALLBACKS=$mode
	export CUDASIM_NESTED_DRIVER_CALLBACKS
	if ! start_waiting "$tag" "$program" wait "$lttng_tmp/$tag.fifo"; then
		tap_result 1 "$tag: the program made its allocations and waits"
		trace_show_err "$tag"
		continue
	fi
	tap_result 0 "$tag: the program made its allocations and waits"
	# What the ledger holds while the program waits.
	cp "$lttng_tmp/$tag.ledger" "$lttng_tmp/$tag.dump-ledger"
	if trace_session "$tag"; then
		# Long enough for the watcher to see the session and dump.
		sleep 1
		go_on "$tag"
		lttng_session_end "$tag"
	else
		go_on "$tag"
	fi
	unset CUDASIM_NESTED_DRIVER_CALLBACKS
	is "$tag: exit status" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	trace_read "$tag" || continue
	trace_check "$tag" --checks readable,statedump,ops,live,addresses \
		--dump-ledger "$lttng_tmp/$tag.dump-ledger" --dump-reason session_start --after-dump
	is "$tag: one statedump" "$(trace_count "$tag" statedump_begin)" 1
done
unset CUDATRACE_SESSION_POLL_MS

# ---------------------------------------------------------- flight recorder
tag=flight
snapshot_dir="$lttng_tmp/$tag"
CUDATRACE_STATEDUMP_PERIOD_MS=100
export CUDATRACE_STATEDUMP_PERIOD_MS
# Overwrite mode, 4 x 4 KiB a CPU: the memsets' events fill it many times
# over; on one CPU, every event goes through the same ring.
if {
	lttng_client create "$tag" --snapshot --output="$snapshot_dir" &&
		lttng_sessions="$lttng_sessions $tag" &&
		lttng_client enable-channel --userspace --session="$tag" --overwrite \
			--subbuf-size=4096 --num-subbuf=4 cudatrace &&
		lttng_client enable-event --userspace --session="$tag" --channel=cudatrace \
			'cudatrace:*' &&
		lttng_client add-context --userspace --session="$tag" --channel=cudatrace \
			-t vpid -t vtid -t procname &&
		lttng_client start "$tag"
} >"$lttng_tmp/lttng-$tag.log" 2>&1; then
	tap_result 0 "$tag: the snapshot-mode session starts"
	if start_waiting "$tag" taskset -c 0 "$program" flight "$lttng_tmp/$tag.fifo" 3000; then
		tap_result 0 "$tag: the program made its allocations, ran its memsets and waits"
		cp "$lttng_tmp/$tag.ledger" "$lttng_tmp/$tag.dump-ledger"
		# A few periods while it waits: complete dumps of what is live.
		sleep 0.5
		lttng_client snapshot record --session="$tag" >>"$lttng_tmp/lttng-$tag.log" 2>&1
		is "$tag: the snapshot is recorded" "$?" 0
		go_on "$tag"
		is "$tag: exit status" "$trace_status" 0
		[ "$trace_status" = 0 ] || trace_show_err "$tag"
	else
		tap_result 1 "$tag: the program made its allocations, ran its memsets and waits"
		trace_show_err "$tag"
		go_on "$tag"
	fi
	lttng_session_end "$tag"
	if trace_read "$tag" "$snapshot_dir"; then
		trace_check "$tag" --checks statedump --dump-ledger "$lttng_tmp/$tag.dump-ledger" \
			--dump-reason periodic
		# The ring buffer wrapped: the allocations of the live set have
		# left the snapshot, only the dump tells of them.
		first=$(sed -n 's/.* op=alloc .* corr=\([0-9]*\).*/\1/p' "$lttng_tmp/$tag.ledger" | head -n 1)
		is "$tag: the snapshot lost the first allocation's mem_alloc (correlation id $first)" \
			"$(grep -c "^event=cudatrace:mem_alloc .* correlation_id=$first\( \|$\)" \
				"$lttng_tmp/$tag.events")" 0
		ok "$tag: the snapshot holds several dumps" \
			test "$(trace_count "$tag" statedump_end)" -ge 2
	fi
else
	tap_result 1 "$tag: the snapshot-mode session starts"
	sed 's/^/#   /' "$lttng_tmp/lttng-$tag.log"
fi
unset CUDATRACE_STATEDUMP_PERIOD_MS
tap_done
