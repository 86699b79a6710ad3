#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The Python examples of examples/python (README.md there says what each
# shows), recorded on the simulated GPU as the top README records them,
# and what cudatrace says of them held against the programs themselves:
#
#   memory_growth.py keeps 8 MiB a step from one line, outside any NVTX
#       range: the first finding of record's summary, of the report's
#       first page (text and HTML, in headless Chromium) and of the JSON
#       report is that line's growth, with the steps and MiB the program
#       prints (tests/cli/check-growth.py); run for 3 steps only, its
#       growth is too short to tell from memory held once, and is not said;
#       what it kept is memory never freed, held at the end, from that line
#   fragmentation_oom.py, small_copies.py: no growth is found

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
examples="$trace_srcdir/examples/python"
check="$cli_here/check-growth.py"

# json TAG: TAG's JSON report in $lttng_tmp/TAG.json
json() {
	"$cli_bin" report --format json -o "$lttng_tmp/$1.json" "$lttng_tmp/$1" \
		2>"$lttng_tmp/$1.report-err"
	is "$1: cudatrace report --format json reads the trace" "$?" 0
}

# fold FILE: its first finding on one line, blanks folded
fold() {
	cli_first_finding "$1" | tr -s ' \n' '  ' | sed 's/^1\. WARNING //; s/ *$//'
}

# ---- memory_growth.py
program="$examples/memory_growth.py"
cli_record growth -o "$lttng_tmp/growth" -- "$trace_python" "$program"
cli_status_is "memory_growth.py: record exits with its status" 0
ok "memory_growth.py printed its steps" grep -q '^step 19: ' "$lttng_tmp/growth.out"
json growth
cli_checks check-growth.py /usr/bin/python3 "$check" "$lttng_tmp/growth.json" "$program" \
	"$lttng_tmp/growth.out"
summary=$(/usr/bin/python3 -c 'import json, sys
print([f for f in json.load(open(sys.argv[1]))["findings"] if f["kind"] == "site_growth"][0]["summary"])' \
	"$lttng_tmp/growth.json" 2>/dev/null)
diag "the finding: $summary"
ok "record's summary leads with it" test -n "$summary" -a "$(fold "$lttng_tmp/growth.err")" != "" \
	-a "$(fold "$lttng_tmp/growth.err" | cut -c1-${#summary})" = "$summary"
"$cli_bin" report -o "$lttng_tmp/growth.txt" "$lttng_tmp/growth" 2>/dev/null
ok "the text report's first page leads with it" \
	test -n "$summary" -a "$(fold "$lttng_tmp/growth.txt" | cut -c1-${#summary})" = "$summary"
ok "... and does not say nothing was found" cli_lacks "$lttng_tmp/growth.txt" '^Nothing found'
ok "the text report lists the site among those whose memory grows" \
	grep -q "^Call sites whose memory grows over the run:" "$lttng_tmp/growth.txt"
status=0
"$cli_bin" report --format html -o "$lttng_tmp/growth.html" "$lttng_tmp/growth" \
	2>"$lttng_tmp/growth.html-err" || status=$?
is "cudatrace report --format html succeeds" "$status" 0
mkdir -p "$lttng_tmp/growth.chromium"
# Python itself, not $trace_python: in a sanitizer build that is a wrapper that
# preloads the sanitizer's runtime, which the Chromium the checker runs inherits
"${PYTHON3:-python3}" "$trace_srcdir/tests/analyzers/check-html.py" "$lttng_tmp/growth.html" \
	"$lttng_tmp/growth.chromium" --text "$summary" >"$lttng_tmp/growth.html.tap" 2>&1
tap_relay "memory_growth.py html" "$lttng_tmp/growth.html.tap"
ok "the HTML first page shows it as a warning block" \
	grep -q "^1\. WARNING $summary" "$lttng_tmp/growth.chromium/first-page.txt"

# Three steps: growth not yet told from memory held once.
cli_record short -o "$lttng_tmp/short" -- "$trace_python" "$program" 3
cli_status_is "memory_growth.py 3: record exits with its status" 0
json short
cli_checks check-growth.py /usr/bin/python3 "$check" --none "$lttng_tmp/short.json" \
	"memory_growth.py 3"
# ... but what it kept is still allocated at the end: 3 times 8 MiB, from that line
kept=$(grep -n 'kept.append(rt.malloc(' "$program" | cut -d: -f1)
is "memory_growth.py 3: its first finding is the memory it never freed, at its line" \
	"$(/usr/bin/python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))["findings"][0]
print(f["kind"], f["numbers"]["leak_count"], f["numbers"]["leaked_bytes"],
      "at memory_growth.py:%s in step," % sys.argv[2] in f["summary"])' \
		"$lttng_tmp/short.json" "$kept" 2>&1)" "leak 3 $((3 * 8 << 20)) True"

# ---- the other examples: no growth
for name in fragmentation_oom small_copies; do
	cli_record "$name" -o "$lttng_tmp/$name" -- "$trace_python" "$examples/$name.py"
	ok "$name.py: record traced it" test -s "$lttng_tmp/$name/cudatrace.info"
	json "$name"
	cli_checks check-growth.py /usr/bin/python3 "$check" --none "$lttng_tmp/$name.json" \
		"$name.py"
done
is "no session is left in the daemon" "$(cli_sessions)" 0
tap_done
