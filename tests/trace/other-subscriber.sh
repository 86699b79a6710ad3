#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Another profiler already holds CUPTI (CUDASIM_CUPTI_OTHER_SUBSCRIBER: the
# simulator's cuptiSubscribe fails with error 39 and names the holder).
# cudatrace must say so in one line on stderr and in a tracer_error event,
# then stay out of the way: the program's output, stderr and exit status
# are those of the untraced run, and no operation is traced.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_workload transfers
trace_daemon_or_fail

holder=nsys-profiler
CUDASIM_CUPTI_OTHER_SUBSCRIBER=$holder
export CUDASIM_CUPTI_OTHER_SUBSCRIBER

trace_run plain plain $trace_cmd
is "untraced: exit status" "$trace_status" 0
plain_status=$trace_status
if ! lttng_session_begin other; then
	tap_result 1 "the LTTng session starts"
	tap_done
fi
trace_run traced traced $trace_cmd
lttng_session_end other

is "traced: same exit status" "$trace_status" "$plain_status"
ok "traced: same output" trace_same_output plain traced
notes=$(grep -c '^cudatrace: ' "$lttng_tmp/traced.err" || :)
is "one 'cudatrace: ' line on stderr" "$notes" 1
ok "it names the profiler holding CUPTI ($holder)" \
	grep -q "^cudatrace: .*$holder" "$lttng_tmp/traced.err"
grep -v '^cudatrace: ' "$lttng_tmp/traced.err" >"$lttng_tmp/traced.err-rest"
ok "nothing else on stderr than untraced" cmp -s "$lttng_tmp/plain.err" "$lttng_tmp/traced.err-rest"
if trace_read traced; then
	errors=$(grep -c '^event=cudatrace:tracer_error .*kind=other_subscriber' \
		"$lttng_tmp/traced.events" || :)
	is "one tracer_error event of kind other_subscriber" "$errors" 1
	ok "the event names the holder" \
		grep -q "^event=cudatrace:tracer_error .*message=[^ ]*$holder" "$lttng_tmp/traced.events"
	traced_ops=$(grep -c '^event=cudatrace:\(mem_alloc\|memcpy\|launch\) ' \
		"$lttng_tmp/traced.events" || :)
	is "no operation is traced" "$traced_ops" 0
fi
tap_done
