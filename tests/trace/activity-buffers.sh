#!/bin/sh
# SPDX-License-Identifier: MIT
#
# cudatrace hands CUPTI its activity buffers zeroed, as it promised with
# CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER (libtrace/activity.c: a
# buffer handed back is cleared where records were read, and kept for the
# next request). With buffers of the smallest size (64 KiB), a loop of
# copies and one of launches use each buffer many times; the simulator
# reads every buffer it is handed (CUDASIM_CUPTI_CHECK_ZEROED=1) and ends
# the program at the first byte that is not zero. Every GPU record still
# reaches the trace, joined to its call.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_daemon_or_fail

CUDATRACE_BUFFER_SIZE=65536
CUDASIM_CUPTI_CHECK_ZEROED=1
export CUDATRACE_BUFFER_SIZE CUDASIM_CUPTI_CHECK_ZEROED
for program in copy-loop launch-loop; do
	trace_cmd="$trace_builddir/tests/programs/$program"
	if [ ! -x "$trace_cmd" ]; then
		tap_result 1 "$program: the test program is built"
		continue
	fi
	tag="$program-buffers"
	trace_session "$tag" || continue
	trace_run "$tag" traced "$trace_cmd" 5000
	lttng_session_end "$tag"
	is "$tag: exit status" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	if grep -q 'cudasim: a buffer handed to CUPTI as zeroed' "$lttng_tmp/$tag.err"; then
		tap_result 1 "$tag: every buffer handed to CUPTI was zero"
		trace_show_err "$tag"
	else
		tap_result 0 "$tag: every buffer handed to CUPTI was zero"
	fi
	if trace_read "$tag"; then
		trace_check "$tag" --checks readable,ops,corr
	fi
done
tap_done
