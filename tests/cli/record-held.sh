#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Memory a program allocates and never frees, held until it ends, is a
# finding on the first page of record's summary and of the report (text
# and JSON), naming the line that holds the most: held-to-end.py keeps
# three 16 MiB buffers from one line and 4 MiB from another, and frees
# its scratch memory each step. Held against the program's printout (the
# lines and what each allocated) and the simulator's ledger (what is
# left allocated at the end).
#
# With --fail, the program then asks more than the device has free: the
# out-of-memory failure names the line whose allocations held the most of
# the process's memory then (memory.failures[].holder), on the first page.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon

cli_record held -o "$lttng_tmp/held" -- "$trace_python" "$cli_here/held-to-end.py"
cli_status_is "held-to-end.py: record exits with its status" 0
ok "held-to-end.py printed what it holds" grep -q '^# done$' "$lttng_tmp/held.out"
"$cli_bin" report --format json -o "$lttng_tmp/held.json" "$lttng_tmp/held" \
	2>"$lttng_tmp/held.report-err"
is "cudatrace report --format json reads the trace" "$?" 0
cli_checks check-held.py /usr/bin/python3 "$cli_here/check-held.py" "$lttng_tmp/held.json" \
	"$lttng_tmp/held.out" "$lttng_tmp/held.ledger"
# leads FILE: its first finding, on one line, is the leak
leads() {
	cli_first_finding "$1" | tr -s ' \n' '  ' | grep -Eq "$want"
}
line=$(sed -n 's/^# held \([0-9]*\) 3 .*/\1/p' "$lttng_tmp/held.out")
want="^1\. WARNING python3 \(pid [0-9]+\) ended with 52\.00 MiB on device 0 it never freed: 3 allocations at held-to-end\.py:$line in .*, 48\.00 MiB and more at other sites"
ok "record's summary leads with it" leads "$lttng_tmp/held.err"
"$cli_bin" report -o "$lttng_tmp/held.txt" "$lttng_tmp/held" 2>/dev/null
ok "the text report's first page leads with it" leads "$lttng_tmp/held.txt"
ok "... and does not say nothing was found" cli_lacks "$lttng_tmp/held.txt" '^Nothing found'
# The HTML page: the finding with the device memory plot beside it
status=0
"$cli_bin" report --format html -o "$lttng_tmp/held.html" "$lttng_tmp/held" \
	2>"$lttng_tmp/held.html-err" || status=$?
is "cudatrace report --format html succeeds" "$status" 0
summary=$(/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["findings"][0]["summary"])' "$lttng_tmp/held.json" 2>/dev/null)
mkdir -p "$lttng_tmp/held.chromium"
# Python itself, not $trace_python: in a sanitizer build that is a wrapper that
# preloads the sanitizer's runtime, which the Chromium the checker runs inherits
"${PYTHON3:-python3}" "$trace_srcdir/tests/analyzers/check-html.py" "$lttng_tmp/held.html" \
	"$lttng_tmp/held.chromium" --text "$summary" >"$lttng_tmp/held.html.tap" 2>&1
tap_relay "held-to-end.py html" "$lttng_tmp/held.html.tap"
ok "record's diagnosis leads with the report's first finding, word for word" \
	cli_same_death held "$lttng_tmp/held.err"

cli_record heldfail -o "$lttng_tmp/heldfail" -- "$trace_python" "$cli_here/held-to-end.py" --fail
cli_status_is "held-to-end.py --fail: record exits with its status" 1
ok "held-to-end.py --fail printed its failure" grep -q '^# failed [0-9]* [0-9]* cudaErrorMemoryAllocation$' \
	"$lttng_tmp/heldfail.out"
"$cli_bin" report --format json -o "$lttng_tmp/heldfail.json" "$lttng_tmp/heldfail" 2>/dev/null
# the printout's weights line and bytes, its failed line and request, as the report's
expected=$(sed -n 's/^# held \([0-9]*\) 3 \([0-9]*\)$/weights \1 3 \2/p; s/^# failed \([0-9]*\) \([0-9]*\) .*/failed \1 \2/p' \
	"$lttng_tmp/heldfail.out" | tr '\n' ' ')
is "the failure, and the site that held the most then, are the program's lines" \
	"$(/usr/bin/python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
f = d["memory"]["failures"][0]
h = f["holder"]
line = lambda site: re.match(r"held-to-end\.py:(\d+) in ", site).group(1)
print("weights %s %d %d failed %s %d %s" % (line(h["site"]), h["count"], h["bytes"], line(f["site"]),
      f["requested_bytes"], f["verdict"]))' "$lttng_tmp/heldfail.json" 2>&1)" \
	"${expected}out_of_memory"
want_line=$(sed -n 's/^# held \([0-9]*\) 3 .*/\1/p' "$lttng_tmp/heldfail.out")
want="^1\. FAILED cudaMalloc of .* out of memory.* the most of it, 48\.00 MiB, was held by 3 allocations made at held-to-end\.py:$want_line in "
ok "record's summary names it in the failure's finding" leads "$lttng_tmp/heldfail.err"
is "no session is left in the daemon" "$(cli_sessions)" 0
tap_done
