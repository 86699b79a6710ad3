#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The channels of `cudatrace record`: the GPU group's events (contract/
# events.def, CUPTI's activity records) are in a channel whose events carry
# the vpid context only, every other cudatrace event in one with vpid and
# vtid, as the trace's own metadata says (babeltrace2's reading of it,
# event-contexts.py). The trace still holds exactly what the simulator's
# ledger says happened, and the report's figures from GPU records (copies
# matched with their records, the kernels' runs and GPU time) are the
# ledger's (gpu-figures.py).

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
trace_require_workload transfers

cli_record ch -o "$lttng_tmp/ch" -- $trace_cmd 1
cli_status_is "transfers: record exits with the program's status" 0 ||
	sed 's/^/#   /' "$lttng_tmp/ch.err"
cli_trace_checked ch "the trace reads back with babeltrace2"

"$trace_python_bt2" "$cli_here/event-contexts.py" "$lttng_tmp/ch" >"$lttng_tmp/ch.contexts" \
	2>"$lttng_tmp/ch.contexts-err" || sed 's/^/#   /' "$lttng_tmp/ch.contexts-err"
sed 's/^/# /' "$lttng_tmp/ch.contexts"
# The GPU group's names, one a line, from the contract.
lttng_gpu_events | tr ',' '\n' | sed 's/^cudatrace://' >"$lttng_tmp/gpu-events"
# split GPU|HOST: the lines of ch.contexts of the GPU group's events, or the others.
split() {
	awk -v want="$1" 'NR == FNR { gpu[$1] = 1; next }
		(want == "GPU") == ($1 in gpu)' "$lttng_tmp/gpu-events" "$lttng_tmp/ch.contexts"
}
split GPU >"$lttng_tmp/ch.gpu"
split HOST >"$lttng_tmp/ch.host"
ok "the trace has GPU events ($(awk '{ print $1 }' "$lttng_tmp/ch.gpu" | paste -s -d' '))" \
	test -s "$lttng_tmp/ch.gpu"
ok "the trace has host events" test -s "$lttng_tmp/ch.host"
is "GPU events carry the vpid context only" "$(grep -vc ' vpid$' "$lttng_tmp/ch.gpu")" 0
is "host events carry the vpid and vtid contexts" \
	"$(grep -vc ' vpid,vtid$' "$lttng_tmp/ch.host")" 0

report_status=0
"$cli_bin" report --format=json -o "$lttng_tmp/ch.json" "$lttng_tmp/ch" \
	2>"$lttng_tmp/ch.report.err" || report_status=$?
is "the report is made" "$report_status" 0 || sed 's/^/#   /' "$lttng_tmp/ch.report.err"
"$trace_python" "$cli_here/gpu-figures.py" "$lttng_tmp/ch.json" "$lttng_tmp/ch.ledger" \
	>"$lttng_tmp/ch.figures" 2>"$lttng_tmp/ch.figures-err" ||
	sed 's/^/#   /' "$lttng_tmp/ch.figures-err"
ok "the report has GPU figures" test -s "$lttng_tmp/ch.figures"
while read -r what reported expected; do
	is "the report's $what is the ledger's" "$reported" "$expected"
done <"$lttng_tmp/ch.figures"
tap_done
