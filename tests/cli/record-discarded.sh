#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The number of discarded events `cudatrace record` prints, and writes in
# cudatrace.info, is the trace's own: what its packet headers'
# events_discarded say, as babeltrace2 reads them (its discarded-events
# messages), not the session daemon's count. Buffers far too small for a
# storm of copies make LTTng discard (on one of three runs at most);
# default buffers make it discard nothing, and both say 0.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
storm="$trace_builddir/tests/analyzers/copy-storm"
[ -x "$storm" ] || tap_fail_all "the copy-storm test program is not built ($storm)"

# said TAG: the count record printed ("N events, M discarded").
said() {
	sed -n 's/.* events, \([0-9?]*\) discarded; trace in .*/\1/p' "$lttng_tmp/$1.err"
}

info() {
	sed -n "s/^$2=//p" "$lttng_tmp/$1/cudatrace.info"
}

# Whether LTTng discards depends on how fast its consumer drains the two
# sub-buffers while the storm writes: on a loaded machine it may keep up
# with a run. Up to three runs are made, the copies as fast as the
# simulator makes them; the first that discarded is the one checked.
CUDASIM_COPY_LATENCY_NS=0
CUDASIM_BW_HTOD_PAGEABLE=1e15
CUDASIM_BW_HTOD_PINNED=1e15
export CUDASIM_COPY_LATENCY_NS CUDASIM_BW_HTOD_PAGEABLE CUDASIM_BW_HTOD_PINNED
for attempt in 1 2 3; do
	rm -rf "$lttng_tmp/small"
	cli_record small --subbuf-size=4K --num-subbuf=2 -o "$lttng_tmp/small" -- "$storm"
	[ "$cli_status" = 0 ] || break
	trace_says=$(cli_bt2_discarded "$lttng_tmp/small")
	[ "${trace_says:-0}" -gt 0 ] 2>/dev/null && break
	diag "small buffers: run $attempt: LTTng's consumer kept up, nothing discarded"
done
unset CUDASIM_COPY_LATENCY_NS CUDASIM_BW_HTOD_PAGEABLE CUDASIM_BW_HTOD_PINNED
cli_status_is "small buffers: record exits with the program's status" 0
trace_says=$(cli_bt2_discarded "$lttng_tmp/small")
ok "small buffers: LTTng discarded events ($trace_says, run $attempt)" \
	test "${trace_says:-0}" -gt 0 2>/dev/null
is "small buffers: record prints the trace's count" "$(said small)" "$trace_says"
is "small buffers: cudatrace.info holds the trace's count" "$(info small discarded)" "$trace_says"
ok "small buffers: and says what to do about it" cli_has small "events were discarded .*use --blocking"

cli_record roomy -o "$lttng_tmp/roomy" -- "$trace_python" "$cli_workload" --steps 3
cli_status_is "default buffers: record exits with 0" 0
is "default buffers: the trace says none was discarded" "$(cli_bt2_discarded "$lttng_tmp/roomy")" 0
is "default buffers: record says 0" "$(said roomy)" 0
is "default buffers: cudatrace.info says 0" "$(info roomy discarded)" 0
ok "default buffers: no warning about discarded events" cli_lacks "$lttng_tmp/roomy.err" "discarded and"
tap_done
