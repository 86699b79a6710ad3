#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace report` on traces longer than the batches the decoding thread
# hands over (analyzers/read/decode-thread.h: 8 of 512 records), so that every
# batch is filled, handed over and reused many times: the figures against
# the truth make-ctf.py prints (every event counted once, in order: the
# peak and the live bytes follow from the order of allocations and frees);
# a trace the reader must refuse at its first event ends at once, with its
# reason, however much of it the decoding thread has read ahead.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
events=30000
long=$report_tmp/long
"$report_python" "$report_here/make-ctf.py" bench "$events" "$long" >"$report_tmp/truth.json" ||
	tap_fail_all "make-ctf.py makes the long trace"

report_run long --format=json "$long"
report_exits long 0
is "long: every event read once" "$(report_value long "d['trace']['events']")" \
	"$(report_value long "t['events']")"
is "long: every allocation counted" "$(report_value long "d['memory']['devices'][0]['allocations']")" \
	"$(report_value long "t['allocations']")"
is "long: the peak of the live set" "$(report_value long "d['memory']['devices'][0]['peak_bytes']")" \
	"$(report_value long "t['peak_bytes']")"
is "long: the bytes live at the end" \
	"$(report_value long "d['memory']['devices'][0]['live_at_end_bytes']")" \
	"$(report_value long "t['live_at_end_bytes']")"
is "long: the trace is complete" "$(report_value long "d['trace']['complete']")" True

future=$report_tmp/future
"$report_python" "$report_here/make-ctf.py" bench-future "$events" "$future" >/dev/null ||
	tap_fail_all "make-ctf.py makes the long trace of a newer tracer"
# killed after a time limit (report_run_damaged): a decoding thread that
# missed the stop would leave the pass waiting
report_run_damaged future --format=json "$future"
report_exits future 2
report_says future "newer than this reader"

tap_done
