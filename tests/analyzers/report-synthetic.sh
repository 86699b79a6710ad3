#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace report` on hand-made CTF traces (make-ctf.py) whose truth is
# known, so that the reader is tested without LTTng or the tracer: the JSON
# against the truth; what `cudatrace record` prints of it (its summary);
# the memory accounting's cases (reclaims, failed releases, statedumps, a
# window begun after allocations, pools), one process each, and the first
# page of a failure whose verdict is withheld (given as no fact);
# the text and CSV forms; the filters; and a corpus of
# damaged copies (cut at every 128 bytes, bytes overwritten) that must each
# give a report or a clear refusal, never a crash. A copy cut inside a
# packet is read up to the cut and reported as cut short.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
trace=$report_tmp/basic
"$report_python" "$report_here/make-ctf.py" basic "$trace" >"$report_tmp/truth.json" ||
	tap_fail_all "make-ctf.py makes the synthetic trace"

# --- the truth
report_run json --format=json "$trace"
report_exits json 0
"$report_python" "$report_here/check-memory-report.py" synthetic "$report_tmp/truth.json" \
	"$report_tmp/json.out" >"$report_tmp/check.tap" 2>&1
tap_relay synthetic "$report_tmp/check.tap"

# --- what `cudatrace record` prints about it (cli/summary.c)
summary_print=${TESTS_BUILDDIR:-$report_builddir/tests}/analyzers/summary-print
if [ -x "$summary_print" ]; then
	"$summary_print" "$trace" >"$report_tmp/summary.out" 2>&1
	ok "summary: reads the trace" test $? = 0
	ok "summary: states LTTng's discarded events" \
		grep -q "LTTng discarded 5 events and 0 packets" "$report_tmp/summary.out"
	ok "summary: states CUPTI's dropped records" \
		grep -q "CUPTI dropped 7 activity records" "$report_tmp/summary.out"
	ok "summary: the figures after the loss are uncertain" \
		grep -q "still allocated at the end (uncertain: events were lost)" "$report_tmp/summary.out"
else
	tap_result 1 "summary: summary-print is built ($summary_print)"
fi

# --- the accounting cases (make-ctf.py accounting): reclaims, failed releases,
# statedumps, a window begun after allocations, pools
acct=$report_tmp/accounting
if "$report_python" "$report_here/make-ctf.py" accounting "$acct" >"$report_tmp/acct-truth.json"
then
	report_run acct-json --format=json "$acct"
	report_exits acct-json 0
	"$report_python" "$report_here/check-memory-report.py" accounting \
		"$report_tmp/acct-truth.json" "$report_tmp/acct-json.out" >"$report_tmp/acct.tap" 2>&1
	tap_relay accounting "$report_tmp/acct.tap"
	# the first page gives the withheld verdict (the truth's) as no fact
	report_run acct-brief --brief "$acct"
	report_exits acct-brief 0
	withheld=$("$report_python" -c 'import json, sys
print(*[p["failure"]["withheld_verdict"] for p in json.load(open(sys.argv[1]))["processes"].values()
        if "failure" in p])' "$report_tmp/acct-truth.json")
	"$report_python" "$report_here/check-first-page.py" - "$report_tmp/acct-brief.out" \
		--withheld "$withheld" >"$report_tmp/acct-brief.tap" 2>&1
	tap_relay "accounting, first page" "$report_tmp/acct-brief.tap"
	# ... and so does the HTML page, in headless Chromium
	report_run acct-html --brief --format=html "$acct"
	report_exits acct-html 0
	mkdir -p "$report_tmp/acct-chromium"
	"$report_python" "$report_here/check-html.py" "$report_tmp/acct-html.out" \
		"$report_tmp/acct-chromium" >"$report_tmp/acct-html.tap" 2>&1
	tap_relay "accounting, html" "$report_tmp/acct-html.tap"
	"$report_python" "$report_here/check-first-page.py" - \
		"$report_tmp/acct-chromium/first-page.txt" --html --withheld "$withheld" \
		>"$report_tmp/acct-html-page.tap" 2>&1
	tap_relay "accounting, html first page" "$report_tmp/acct-html-page.tap"
	report_run acct-text --details "$acct"
	ok "accounting, text: the reclaimed allocations, never freed by the program" \
		grep -q "reclaimed by cudaDeviceReset, never freed by the program" \
		"$report_tmp/acct-text.out"
	ok "accounting, text: a list that may miss entries says so" \
		grep -q "Live at the end (at least these)" "$report_tmp/acct-text.out"
	if [ -x "$summary_print" ]; then
		"$summary_print" "$acct" >"$report_tmp/acct-summary.out" 2>&1
		ok "accounting, summary: a lower bound is \"at least\"" \
			grep -q "device 0: at least 4.00 MiB" "$report_tmp/acct-summary.out"
		ok "accounting, summary: what CUDA reclaimed" \
			grep -q "never freed by the program: reclaimed by cudaDeviceReset" \
			"$report_tmp/acct-summary.out"
	fi
else
	tap_result 1 "make-ctf.py makes the accounting trace"
fi

# --- the other formats
report_run text "$trace"
report_exits text 0
ok "text: has the memory section" grep -q "^Memory" "$report_tmp/text.out"
ok "text: shows the leak site" grep -q "train/step:cudaMalloc" "$report_tmp/text.out"
ok "text: shows sizes in units" grep -q "MiB" "$report_tmp/text.out"
report_run csv --format=csv "$trace"
report_exits csv 0
ok "csv: a table of leaks with their process and device" \
	grep -q "^pid,device,address,size" "$report_tmp/csv.out"
ok "csv: the table names" grep -q "^# memory.devices.leaks" "$report_tmp/csv.out"
report_run out-file --format=json --output="$report_tmp/report.json" "$trace"
report_exits out-file 0
ok "--output writes the report there" "$report_python" -c \
	"import json,sys; json.load(open(sys.argv[1]))" "$report_tmp/report.json"

# --- filters (json: the field values tell)
field() { # TAG PYTHON-EXPRESSION-ON-d
	"$report_python" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" \
		"$report_tmp/$1.out" 2>/dev/null
}
report_run other-pid --format=json --pid=1 "$trace"
report_exits other-pid 0
is "--pid of another process: no memory entries" "$(field other-pid "len(d['memory']['devices'])")" 0
report_run by-name --format=json --process=synthetic "$trace"
is "--process by name keeps the process" "$(field by-name "len(d['memory']['devices'])")" 1
report_run nvtx --format=json --nvtx=step "$trace"
report_exits nvtx 0
is "--nvtx=step: only what the steps allocated (16 MiB + 3 x 1 MiB)" \
	"$(field nvtx "d['memory']['devices'][0]['peak_bytes']")" $((19 * 1048576))
report_run window --format=json --from=+8us --to=+20us "$trace"
report_exits window 0
is "--from/--to: the allocation before the window counts as live, not as allocated" \
	"$(field window "d['memory']['devices'][0]['allocations']")" 5
report_run device --format=json --device=1 "$trace"
is "--device=1: nothing on device 0" "$(field device "len(d['memory']['devices'])")" 0
# two traces (a copy of the first: the same trace named twice is read once)
cp -r "$trace" "$report_tmp/second"
report_run several --format=json "$trace" "$report_tmp/second"
report_exits several 0
is "two traces: both read" "$(field several "d['trace']['events']")" \
	"$(field json "d['trace']['events'] * 2")"

# --- damaged copies
size=$(wc -c <"$trace/cudatrace_0")
cuts=0
crashes=""
at=128
while [ "$at" -lt "$size" ]; do
	rm -rf "$report_tmp/cut"
	cp -r "$trace" "$report_tmp/cut"
	head -c "$at" "$trace/cudatrace_0" >"$report_tmp/cut/cudatrace_0"
	report_run_damaged cut --format=json "$report_tmp/cut"
	case $report_status in
	0 | 2) ;;
	*) crashes="$crashes $at:$report_status" ;;
	esac
	cuts=$((cuts + 1))
	at=$((at + 128))
done
is "cut at each of $cuts places: a report or a refusal, no crash" "$crashes" ""
rm -rf "$report_tmp/cut"
cp -r "$trace" "$report_tmp/cut"
head -c 4700 "$trace/cudatrace_0" >"$report_tmp/cut/cudatrace_0"
report_run_damaged cut-late --format=json "$report_tmp/cut"
report_exits cut-late 0
report_says cut-late "partial packet"
is "cut inside the second packet: reported as cut short" \
	"$(field cut-late "d['trace']['complete']")" False
ok "cut inside the second packet: the first packet's events are analysed" \
	test "$(field cut-late "d['trace']['events']")" -gt 10

damaged=""
for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
	rm -rf "$report_tmp/bad"
	cp -r "$trace" "$report_tmp/bad"
	"$report_python" - "$report_tmp/bad/cudatrace_0" "$seed" <<'PY'
import random, sys
path, seed = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, "rb").read())
rng = random.Random(seed)
for _ in range(rng.randint(1, 8)):
    at = rng.randrange(len(data))
    data[at] = rng.randrange(256)
open(path, "wb").write(data)
PY
	report_run_damaged bad --format=json "$report_tmp/bad"
	case $report_status in
	0 | 2) ;;
	*) damaged="$damaged $seed:$report_status" ;;
	esac
done
is "bytes overwritten in 12 ways: a report or a refusal, no crash" "$damaged" ""
tap_done
