#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace report` and `cudatrace list` on damaged copies of a real
# trace: memory-workload traced on the simulated GPU into a private LTTng
# session (packetized metadata, two stream files, index files), then each
# file cut, bit-flipped and zeroed by damage.py. Each report ends in
# bounded time with exit status 0 (a report that says what was lost) or 2
# (a message in cudatrace's terms), each list with exit status 0, never a
# crash (a sanitizer build aborts on an error report, which fails the
# run).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/lttng-session.sh"
. "$here/../lib/trace-run.sh"
. "$here/report-lib.sh"

report_traced_setup "$@"

# small packets, so that each stream file has several
if ! lttng_session_begin recorded 4096 64; then
	tap_result 1 "the LTTng session starts"
	tap_done
fi
trace_run recorded traced "$report_workload" leak 12
lttng_session_end recorded
is "the workload ran" "$trace_status" 0
[ "$trace_status" = 0 ] || trace_show_err recorded
report_run recorded "$lttng_trace"
report_exits recorded 0
metadata=$(find "$lttng_trace" -name metadata -type f | head -n 1)
[ -n "$metadata" ] || tap_fail_all "the recorded trace has no metadata file"
"$report_python" "$report_here/damage.py" "$report_cmd" "$(dirname "$metadata")" \
	"$report_tmp/work" 1 >"$report_tmp/damage.tap" 2>&1
tap_relay real "$report_tmp/damage.tap"
tap_done
