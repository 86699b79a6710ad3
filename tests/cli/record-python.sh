#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record` of a Python script (CUDA through ctypes) on the
# simulated GPU: the trace holds what the ledger says, memory kept by the
# script shows in the short report; when the script is killed with
# SIGKILL (the OOM killer, a Jupyter restart), record keeps the trace,
# exits with 128+9 and writes the post-mortem beside the trace and on
# stderr (which does not repeat what the short report above it said);
# when record itself gets SIGTERM, it passes it on and ends the same way.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon

# 1. A script that keeps 1 MiB per step.
cli_record py -o "$lttng_tmp/py" -- "$trace_python" "$cli_workload" --steps 4 --leak
cli_status_is "the script: record exits with its status" 0
ok "the script's output is on stdout" grep -qx 'step 3' "$lttng_tmp/py.out"
ok "the short report shows what the script kept (4 MiB)" \
	cli_has py "4.00 MiB still allocated at the end"
cli_trace_checked py "the trace reads back with babeltrace2"

# 2. The script is killed with SIGKILL.
cli_start_paused killed -o "$lttng_tmp/killed"
[ -n "$script_pid" ] && kill -KILL $script_pid
status=0
wait $rec_pid || status=$?
is "killed: record exits with 128+9" "$status" 137
ok "killed: record says how the script ended" cli_has killed "was killed by SIGKILL"
ok "killed: the post-mortem is on stderr" cli_has killed "^Post-mortem: python"
ok "killed: it shows the 3 MiB live when the script died" cli_has killed "3.00 MiB live"
ok "killed: the post-mortem is beside the trace" \
	grep -q "^Post-mortem" "$lttng_tmp/killed/postmortem.txt"
ok "killed: the notes say it was killed" grep -qx 'end=killed' "$lttng_tmp/killed/cudatrace.info"
ok "killed: ... by signal 9" grep -qx 'end_code=9' "$lttng_tmp/killed/cudatrace.info"
cli_trace_checked killed "killed: the trace reads back"

# 3. record gets SIGTERM: the script gets it, record ends as it does.
cli_start_paused term -o "$lttng_tmp/term"
kill -TERM $rec_pid
status=0
wait $rec_pid || status=$?
is "SIGTERM to record: record exits with 128+15" "$status" 143
ok "SIGTERM to record: the script got it" cli_has term "was killed by SIGTERM"
ok "SIGTERM to record: the post-mortem is written" test -s "$lttng_tmp/term/postmortem.txt"
cli_trace_checked term "SIGTERM to record: the trace reads back"

# 4. Killed after an allocation failed: the post-mortem on stderr follows
# the short report, which has counted the failure; it does not count it
# again. The post-mortem file, read alone, does. The SIGKILL came from
# the test, not from the failure: it is said so, the failure apart, in
# the same words by record, its post-mortem and the report.
cli_record_killed failed -o "$lttng_tmp/failed" -- \
	"$trace_python" "$cli_workload" --steps 1 --fail-alloc --pause
cli_status_is "failed, killed: record exits with 128+9" 137
ok "failed, killed: the notes say killed by a signal" \
	grep -qx 'death=killed' "$lttng_tmp/failed/cudatrace.info"
ok "failed, killed: record's diagnosis leads with the kill" \
	cli_has failed '^1\. FAILED   python3 was killed by SIGKILL$'
ok "failed, killed: the failed allocation is a fact of its own, not what ended it" \
	cli_has failed '^2\. FAILED   cudaMalloc of .* failed on device 0: out of memory$'
ok "failed, killed: nothing puts the kill on the failure" \
	cli_lacks "$lttng_tmp/failed.err" 'then python3 was killed'
ok "failed, killed: record's diagnosis leads with the report's first finding, word for word" \
	cli_same_death failed "$lttng_tmp/failed.err"
ok "failed, killed: and so does the post-mortem file" \
	cli_same_death failed "$lttng_tmp/failed/postmortem.txt"
"$cli_bin" report --format json -o "$lttng_tmp/failed.json" "$lttng_tmp/failed"
is "failed, killed: the report's process_end says it in the words of its finding" \
	"$("$trace_python" -c 'import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"][0]
print((d["process_end"]["cause"], f["kind"], f["death"],
       d["process_end"]["summary"] == f["summary"] + ". " + f["explanation"][0].upper() + f["explanation"][1:] + ".",
       [(g["kind"], g["death"]) for g in d["findings"] if g["kind"] == "allocation_failure" or g["death"]][1:]))' "$lttng_tmp/failed.json")" \
	"('killed', 'process_death', 'killed', True, [('allocation_failure', None)])"
is "failed, killed: stderr counts the failure once" \
	"$(grep -c 'Allocation failures: 1 ' "$lttng_tmp/failed.err")" 1
ok "failed, killed: the post-mortem on stderr names the failure" \
	cli_has failed "^  An allocation failed before it died"
is "failed, killed: the post-mortem file counts it" \
	"$(grep -c 'Allocation failures: 1 ' "$lttng_tmp/failed/postmortem.txt")" 1
is "no session is left in the daemon" "$(cli_sessions)" 0
tap_done
