#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The Python lines of copies, end to end: `cudatrace record` of
# tests/cli/python-copies.py, which copies from two functions through one
# shared helper, call by call in turn with the same buffer and size, and
# from a thread of its own. The report's transfer hotspots and its
# costly-copies findings must name the Python line of each (the line the
# program's source marks), with the count the program printed; the tracer
# must take a stack only when a thread's Python line changes, not at every
# copy, and a loop's copies must still be written as repeats.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
program="$cli_here/python-copies.py"
rounds=50

cli_record pycopies -o "$lttng_tmp/pycopies" -- "$trace_python" "$program" $rounds
cli_status_is "python-copies.py: record exits with the program's status" 0
ok "the program ran to its end" grep -qx "copies thread_copies $rounds" \
	"$lttng_tmp/pycopies.out"
cli_trace_checked pycopies "the trace reads back and holds the ledger's operations"

"$cli_bin" report --format json -o "$lttng_tmp/pycopies.json" "$lttng_tmp/pycopies" \
	2>"$lttng_tmp/report.err"
is "cudatrace report reads the trace" "$?" 0
cli_checks python-copy-sites.py /usr/bin/python3 "$cli_here/python-copy-sites.py" \
	"$lttng_tmp/pycopies.json" "$program" "$lttng_tmp/pycopies.out"

# A call_site when the line changes: load_weights' copy every other round
# comes between two of load_batches', so at most two a round and the
# thread's first; not one a copy (2.5 a round here).
sites=$(grep -c 'event=cudatrace:call_site ' "$lttng_tmp/pycopies.events")
ok "a call_site when the Python line changes, not at every copy ($sites)" \
	test "$sites" -ge 3 -a "$sites" -le $((rounds + 3))
ok "the loop's copies are still written as repeats" \
	grep -q 'event=cudatrace:repeat_run ' "$lttng_tmp/pycopies.events"

# CUDATRACE_STACK_DEPTH=0: no stack, the copies' site is the API.
CUDATRACE_STACK_DEPTH=0 cli_record pycopies0 -o "$lttng_tmp/pycopies0" -- \
	"$trace_python" "$program" 2
cli_status_is "CUDATRACE_STACK_DEPTH=0: record exits with the program's status" 0
"$cli_bin" report --format json -o "$lttng_tmp/pycopies0.json" "$lttng_tmp/pycopies0" 2>/dev/null
ok "no Python line is named" cli_lacks "$lttng_tmp/pycopies0.json" 'in load_batches'
ok "the copies' site is the API" /usr/bin/python3 -c 'import json, sys
hotspots = json.load(open(sys.argv[1]))["transfers"]["hotspots"]
sys.exit(not hotspots or any(h["site"] != "cudaMemcpy" for h in hotspots))' \
	"$lttng_tmp/pycopies0.json"
tap_done
