#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Activity records that CUPTI drops (the simulator drops every Nth with
# CUDASIM_CUPTI_DROP_EVERY and writes a cupti_drop line for each) appear as
# activity_dropped events whose counts sum to the ledger's; the host events
# are all there regardless, and the GPU events that survived still carry
# their host event's correlation id.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_daemon_or_fail

CUDASIM_CUPTI_DROP_EVERY=3
export CUDASIM_CUPTI_DROP_EVERY
for workload in transfers driver-api; do
	trace_workload_or_fail "$workload" || continue
	tag="$workload-drops"
	trace_session "$tag" || continue
	# shellcheck disable=SC2086
	trace_run "$tag" traced $trace_cmd
	lttng_session_end "$tag"
	is "$tag: exit status" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	if trace_read "$tag"; then
		trace_check "$tag" --checks readable,ops,live,corr,drops --allow-missing-gpu
	fi
done
tap_done
