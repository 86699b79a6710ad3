#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A memset and a stream synchronisation a round (programs/sync-loop), the
# loop of a training step that reads its loss back. CUPTI records both
# (SYNCHRONIZATION, MEMSET); the trace holds what those records add to the
# calls' own events, and no more (doc/events.md, "gpu_sync" and
# "gpu_memset_times"):
#   - a synchronisation whose sync event is in the trace has no gpu_sync:
#     its api_entry and its sync already say when the host waited;
#   - a memset whose memset event is in the trace has its times in a
#     gpu_batch (or a gpu_memset_times), which a reader makes the
#     gpu_memset it stands for: its GPU times and bytes are the ledger's
#     (check-trace.py's corr and gputime);
#   - an allocation and a free of memory no pool holds, whose mem_alloc and
#     mem_free are in the trace, have no gpu_memory;
#   - with CUDATRACE_COMPACT=0 every record is written whole: a gpu_sync
#     for each synchronising call, a gpu_memset for each memset, a
#     gpu_memory for the cudaMalloc and for the cudaFree.
# The tracer's periodic flush is off, so that every record is read after
# its call's event is written, as the buffer thread finds the calls'
# notes (libtrace/recorded-ops.h).

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_program sync-loop
program=$trace_cmd
trace_daemon_or_fail
rounds=40

for compact in 1 0; do
	tag="sync-compact$compact"
	trace_session "$tag" || continue
	trace_run "$tag" traced env CUDATRACE_FLUSH_PERIOD_MS=0 CUDATRACE_COMPACT=$compact \
		"$program" $rounds
	lttng_session_end "$tag"
	is "$tag: exit status" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	is "$tag: the program made its rounds and synchronisations" \
		"$(cat "$lttng_tmp/$tag.out")" "rounds=$rounds syncs=$((rounds + 2))"
	trace_read "$tag" || continue
	trace_check "$tag" --checks readable,ops,corr,gputime
	is "$tag: a sync event for each synchronising call" \
		"$(trace_count "$tag" sync)" $((rounds + 2))
	memsets=$(($(trace_count "$tag" gpu_memset) + $(trace_count "$tag" gpu_memset_times) +
		$(trace_batched_memsets "$tag")))
	is "$tag: a GPU record for each memset" "$memsets" $rounds
	if [ $compact = 1 ]; then
		is "$tag: no gpu_sync: each synchronisation's sync event says it" \
			"$(trace_count "$tag" gpu_sync)" 0
		ok "$tag: the memsets' records are batched" \
			test "$(trace_batched_memsets "$tag")" -gt $((rounds / 2))
		is "$tag: no gpu_memory: the mem_alloc and mem_free say it" \
			"$(trace_count "$tag" gpu_memory)" 0
	else
		is "$tag: a gpu_sync for each synchronising call" \
			"$(trace_count "$tag" gpu_sync)" $((rounds + 2))
		is "$tag: a whole gpu_memset for each memset" \
			"$(trace_count "$tag" gpu_memset)" $rounds
		is "$tag: a gpu_memory for the allocation and one for the free" \
			"$(trace_count "$tag" gpu_memory)" 2
	fi
done
tap_done
