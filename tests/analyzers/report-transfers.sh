#!/bin/sh
# SPDX-License-Identifier: MIT
#
# report-transfers.sh - end to end on the simulated GPU: two workloads run
# traced by libcudatrace.so in a private LTTng session, `cudatrace report
# --format json` reads the traces, and check-transfers-report.py compares the
# transfers, kernels, gpu and api sections with the simulator's ledger:
#
#   transfers    examples/cuda/transfers, two rounds: copies of every kind,
#                memsets, launches; counts, bytes, GPU times, kernel
#                statistics, busy time and the expected findings; record's
#                summary names each hotspot's direction and host memory;
#   copy-storm   tests/analyzers/copy-storm: a storm of small pageable
#                copies ranked above one large pinned copy; the first
#                page of the text report (--brief) names the storm with
#                the ledger's count and bytes, and the fix
#                (check-first-page.py), and so does the HTML report in
#                headless Chromium, with the transfers plot beside the
#                storm's finding (check-html.py).
#
# The plots of each report are drawn too (--plot). Fails when the tracer,
# the simulator, lttng or the programs are missing.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/lttng-session.sh"
. "$here/../lib/trace-run.sh"

trace_setup "$@"
cudatrace="$trace_builddir/cli/cudatrace"
storm="$trace_builddir/tests/analyzers/copy-storm"
[ -x "$cudatrace" ] || tap_fail_all "cudatrace is not built ($cudatrace)"
[ -x "$storm" ] || tap_fail_all "copy-storm is not built ($storm)"
trace_require_workload transfers
trace_daemon_or_fail

# report_case TAG WORKLOAD CMD...: trace CMD, report on it, check the report.
report_case() {
	case_tag=$1
	case_workload=$2
	shift 2
	trace_session "$case_tag" || return
	trace_run "$case_tag" traced "$@"
	lttng_session_end "$case_tag"
	is "$case_tag: the traced program succeeds" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$case_tag"
	case_status=0
	"$cudatrace" report --format json --max-rows 0 --plot "$lttng_tmp/$case_tag.plots" \
		"$lttng_trace" >"$lttng_tmp/$case_tag.json" 2>"$lttng_tmp/$case_tag.report-err" ||
		case_status=$?
	is "$case_tag: cudatrace report succeeds" "$case_status" 0
	[ "$case_status" = 0 ] || sed 's/^/#   /' "$lttng_tmp/$case_tag.report-err"
	"$trace_python" "$here/check-transfers-report.py" --workload "$case_workload" \
		--ledger "$lttng_tmp/$case_tag.ledger" --report "$lttng_tmp/$case_tag.json" \
		>"$lttng_tmp/$case_tag.tap" 2>&1
	tap_relay "$case_tag" "$lttng_tmp/$case_tag.tap"
	ok "$case_tag: the transfer plot is drawn" test -s "$lttng_tmp/$case_tag.plots/transfers.png"
}

# first_page TAG ARGS...: the --brief report of TAG's trace, checked against its ledger.
first_page() {
	page_tag=$1
	shift
	page_status=0
	"$cudatrace" report --brief "$lttng_trace" >"$lttng_tmp/$page_tag.brief" \
		2>"$lttng_tmp/$page_tag.brief-err" || page_status=$?
	is "$page_tag: cudatrace report --brief succeeds" "$page_status" 0
	"$trace_python" "$here/check-first-page.py" "$lttng_tmp/$page_tag.ledger" \
		"$lttng_tmp/$page_tag.brief" "$@" >"$lttng_tmp/$page_tag.page.tap" 2>&1
	tap_relay "$page_tag first page" "$lttng_tmp/$page_tag.page.tap"
	# the HTML report in headless Chromium: the same findings, the transfers plot beside
	page_status=0
	"$cudatrace" report --brief --format html "$lttng_trace" >"$lttng_tmp/$page_tag.html" \
		2>"$lttng_tmp/$page_tag.html-err" || page_status=$?
	is "$page_tag: cudatrace report --brief --format html succeeds" "$page_status" 0
	mkdir -p "$lttng_tmp/$page_tag.chromium"
	"$trace_python" "$here/check-html.py" "$lttng_tmp/$page_tag.html" \
		"$lttng_tmp/$page_tag.chromium" >"$lttng_tmp/$page_tag.html.tap" 2>&1
	tap_relay "$page_tag html" "$lttng_tmp/$page_tag.html.tap"
	"$trace_python" "$here/check-first-page.py" "$lttng_tmp/$page_tag.ledger" \
		"$lttng_tmp/$page_tag.chromium/first-page.txt" --html "$@" \
		>"$lttng_tmp/$page_tag.html-page.tap" 2>&1
	tap_relay "$page_tag html first page" "$lttng_tmp/$page_tag.html-page.tap"
}

# shellcheck disable=SC2086
report_case transfers transfers $trace_cmd 2
# Record's summary lists the costliest hotspots (which ones depends on
# their timing): each names its direction and its host memory, and a copy
# between devices, which has none, says nothing of it ("DtoD sync").
summary_print=${TESTS_BUILDDIR:-$trace_builddir/tests}/analyzers/summary-print
"$summary_print" "$lttng_trace" >"$lttng_tmp/transfers.summary" 2>&1
hotspots=$(sed -n 's/^ *[0-9]*\. cudaMemcpy\(Async\)\{0,1\} \([A-Za-z]*\) \([a-z ]*\), device.*/\2 \3/p' \
	"$lttng_tmp/transfers.summary")
ok "transfers: the summary lists hotspots" test -n "$hotspots"
is "transfers: each names its direction and host memory, none for a copy between devices" \
	"$(echo "$hotspots" | grep -Evc '^((HtoD|DtoH|HtoH) (pageable|pinned)|DtoD|HtoH) (a)?sync$')" 0
report_case storm copy-storm "$storm"
first_page storm --storm storm:cudaMemcpy
tap_done
