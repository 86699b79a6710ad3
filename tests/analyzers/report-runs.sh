#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Runs of repeats (doc/events.md, "repeat_run"), from make-ctf.py's
# "runs" trace: the copies, memsets and launches of report-repeats.sh,
# each thread's repeats kept and written together in a repeat_run before
# its next whole event (or when a second old), the other thread's by the
# main thread, naming it (tid), their GPU records after the run; each
# call timed by the run's base and columns, not by its timestamp. The
# report holds the truth as report-repeats.sh's does (check-repeats.py),
# and the text report's first page says what was lost.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
report_synthetic runs
ok "text: the first page says 5 calls repeat a call whose event is not in the trace" \
	grep -q "^Lost: 5 calls repeat a call whose event is not in the trace" "$report_tmp/text.out"

"$report_python" "$report_here/check-repeats.py" "$report_tmp" >"$report_tmp/check.tap" 2>&1
tap_relay "runs" "$report_tmp/check.tap"
tap_done
