#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record` under faults of LTTng while the program runs: the
# program comes first (it runs on, its status comes back), the trace keeps
# what was written and stays readable, and record tells the truth about
# it. Each fault is made in the test's own namespace, on daemons the test
# started, by pid.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon

# bt2_events DIR: the number of events babeltrace2 reads in DIR, or
# "error: ..." when it cannot read it.
bt2_events() {
	"$trace_python_bt2" - "$1" <<'PY'
import sys, bt2
try:
    n = sum(1 for m in bt2.TraceCollectionMessageIterator(sys.argv[1])
            if type(m) is bt2._EventMessageConst)
except Exception as e:
    print("error: %s" % str(e).splitlines()[0])
    sys.exit(0)
print(n)
PY
}

# wait_metadata DIR: up to 10 s for DIR to hold a non-empty metadata file.
wait_metadata() {
	wait_tries=0
	while [ $wait_tries -lt 100 ]; do
		[ -n "$(find "$1" -name metadata -size +0 2>/dev/null)" ] && return 0
		sleep 0.1
		wait_tries=$((wait_tries + 1))
	done
	return 1
}

# ---- the metadata is on disk while the program runs, not only at the end
cli_start_gated early -o "$lttng_tmp/early"
ok "early: the metadata is written while the program runs" wait_metadata "$lttng_tmp/early"
sleep 1.2 # one switch of the data's sub-buffers
events=$(bt2_events "$lttng_tmp/early")
ok "early: the trace reads back while it is recorded ($events events)" test "${events:-0}" -gt 0 2>/dev/null
cli_open_gate early
status=0
wait $rec_pid || status=$?
is "early: record exits with the program's status" "$status" 0
tap_done
