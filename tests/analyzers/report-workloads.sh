#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Memory situations made on the simulated GPU by memory-workload, traced by
# libcudatrace into a private LTTng session, reported by `cudatrace report
# --format json` and compared with the simulator's ledger
# (check-memory-report.py): the peak and exactly the allocations live at it, what
# is live at the end, every failed allocation and its verdict.
#
#   fragment   enough memory free, no block large enough -> fragmented
#   exhaust    the device filled by the process          -> out_of_memory
#   elsewhere  other processes hold the device           -> held_elsewhere
#   pooled     the process's own pool keeps what is missing -> pool_cached
#   leak       1 MiB kept per step, inside NVTX train/step: exactly those
#              leaks, at train/step and the line that made them, and a
#              range that grows
#
# For each, the first page of the text report (--brief) names the
# situation with the ledger's numbers (check-first-page.py), the default
# text report starts with that page, the record summary (summary-print)
# leads with its findings, and the HTML report, rendered by headless
# Chromium (check-html.py), shows them too, each finding a block in its
# severity's colour, with its two plots: device memory, beside the
# findings it belongs to, and the host memory the tracer sampled.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/lttng-session.sh"
. "$here/../lib/trace-run.sh"
. "$here/report-lib.sh"

report_traced_setup "$@"

# traced_report TAG ARGS...: run memory-workload ARGS traced, report its trace as JSON.
traced_report() {
	tag=$1
	shift
	trace_session "$tag" || return 1
	trace_run "$tag" traced "$report_workload" "$@"
	lttng_session_end "$tag"
	is "$tag: the workload made its situation" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	report_run "$tag" --format=json "$lttng_trace"
	report_exits "$tag" 0
}

# check TAG ARGS...: check-memory-report.py ledger on TAG, relayed as TAP.
check() {
	tag=$1
	shift
	"$report_python" "$report_here/check-memory-report.py" ledger "$lttng_tmp/$tag.ledger" \
		"$report_tmp/$tag.out" "$@" >"$report_tmp/$tag.tap" 2>&1
	tap_relay "$tag" "$report_tmp/$tag.tap"
}

summary_print=${TESTS_BUILDDIR:-$report_builddir/tests}/analyzers/summary-print
[ -x "$summary_print" ] || tap_fail_all "analyzers/summary-print is not built ($summary_print)"

# first_page TAG ARGS...: check-first-page.py on the --brief report of TAG's trace.
first_page() {
	tag=$1
	shift
	report_run "$tag-brief" --brief "$lttng_trace"
	report_exits "$tag-brief" 0
	"$report_python" "$report_here/check-first-page.py" "$lttng_tmp/$tag.ledger" \
		"$report_tmp/$tag-brief.out" "$@" >"$report_tmp/$tag-brief.tap" 2>&1
	tap_relay "$tag first page" "$report_tmp/$tag-brief.tap"
	report_run "$tag-text" "$lttng_trace"
	head -n "$(wc -l <"$report_tmp/$tag-brief.out")" "$report_tmp/$tag-text.out" \
		>"$report_tmp/$tag-head.out"
	ok "$tag: the text report starts with the first page" \
		cmp -s "$report_tmp/$tag-brief.out" "$report_tmp/$tag-head.out"
	# what `cudatrace record` prints leads with the same findings (its
	# header counts the events of its three analyses only)
	if "$summary_print" "$lttng_trace" >"$report_tmp/$tag-summary.out" 2>&1; then
		sed -n '/^1\. /,$p' "$report_tmp/$tag-brief.out" >"$report_tmp/$tag-brief-tail.out"
		sed -n '/^1\. /,$p' "$report_tmp/$tag-summary.out" |
			head -n "$(wc -l <"$report_tmp/$tag-brief-tail.out")" \
			>"$report_tmp/$tag-summary-head.out"
		first=$(grep -n '^1\. ' "$report_tmp/$tag-summary.out" | head -n 1 | cut -d: -f1)
		peak=$(grep -n '^  Peak GPU memory' "$report_tmp/$tag-summary.out" | cut -d: -f1)
		ok "$tag: the record summary leads with the findings, then the peaks" \
			test "${first:-0}" -gt 0 -a "${peak:-0}" -gt "${first:-0}"
		ok "$tag: ... the findings of the first page" \
			cmp -s "$report_tmp/$tag-brief-tail.out" "$report_tmp/$tag-summary-head.out"
	else
		tap_result 1 "$tag: summary-print reads the trace"
	fi
	# the HTML report in headless Chromium: the same first page, a plot, a screenshot
	report_run "$tag-html" --format=html "$lttng_trace"
	report_exits "$tag-html" 0
	mkdir -p "$report_tmp/$tag-chromium"
	"$report_python" "$report_here/check-html.py" "$report_tmp/$tag-html.out" \
		"$report_tmp/$tag-chromium" --plots 2 >"$report_tmp/$tag-html.tap" 2>&1
	tap_relay "$tag html" "$report_tmp/$tag-html.tap"
	"$report_python" "$report_here/check-first-page.py" "$lttng_tmp/$tag.ledger" \
		"$report_tmp/$tag-chromium/first-page.txt" --html "$@" \
		>"$report_tmp/$tag-html-page.tap" 2>&1
	tap_relay "$tag html first page" "$report_tmp/$tag-html-page.tap"
}

# A small device keeps the fills short; the context takes 300 MiB of it.
CUDASIM_DEVICE_MEMORY=1G
export CUDASIM_DEVICE_MEMORY
if traced_report fragment fragment; then
	check fragment --verdict out_of_memory --verdict fragmented
	first_page fragment --failure out_of_memory --failure fragmented
fi
if traced_report exhaust exhaust; then
	check exhaust --verdict out_of_memory
	first_page exhaust --failure out_of_memory
fi
if traced_report pooled pooled; then
	check pooled --verdict pool_cached
	first_page pooled --failure pool_cached
fi
unset CUDASIM_DEVICE_MEMORY

# a pid no process can have (every pid is below PID_MAX_LIMIT, 4194304)
CUDASIM_OTHER_PROCESSES=0:4194304:2684354560
export CUDASIM_OTHER_PROCESSES
if traced_report elsewhere elsewhere; then
	check elsewhere --verdict held_elsewhere --holder 4194304:2684354560
	first_page elsewhere --failure held_elsewhere
fi
unset CUDASIM_OTHER_PROCESSES

if traced_report leak leak 4; then
	first_page leak --growth train/step --growth-site "$report_leak_site"
	check leak --leak-site "$report_leak_site" --growing train/step
fi
tap_done
