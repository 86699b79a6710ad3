#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace report` and `cudatrace list` on damaged copies of a real
# trace: memory-workload traced on the simulated GPU into a private LTTng
# session (packetized metadata, two stream files, index files), then each
# file cut, bit-flipped and zeroed by damage.py, and 0xff bytes in a
# packet's stream instance id and start time. Each report ends in
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

# 0xff bytes in the second packet's stream_instance_id (LTTng's packet
# header, bytes 24 to 31) or timestamp_begin (its context, bytes 32 to 39):
# babeltrace2 alone aborts on the second. The packets before it are read.
# the largest stream file: several packets of 4096 bytes
stream=$(cd "$(dirname "$metadata")" && ls -S cudatrace_* | head -n 1)
for case in instance:24 begin:32; do
	tag=ff-${case%:*}
	cp -r "$(dirname "$metadata")" "$report_tmp/$tag"
	"$report_python" - "$report_tmp/$tag/$stream" "$((4096 + ${case#*:}))" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]))
    f.write(b"\xff" * 8)
PY
	report_run_damaged "$tag" --format=json "$report_tmp/$tag"
	report_exits "$tag" 0
	case $tag in
	ff-instance) says="its stream instance id" ;;
	*) says="its times" ;;
	esac
	report_says "$tag" "stream file '$stream' of '.*$tag' has a corrupt packet ($says) at byte 4096"
done
tap_done
