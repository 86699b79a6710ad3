#!/bin/sh
# SPDX-License-Identifier: MIT
#
# An allocation refused for want of a current context
# (programs/drv-no-context: cuMemAlloc before any context is current
# returns CUDA_ERROR_INVALID_CONTEXT, then the program makes one current
# and allocates): the tracer records the failure with no device
# (doc/events.md: device 255, CT_DEVICE_NONE), and the report says so in
# words. Its first page: the failure "with no current context", not a
# lack of memory, "no device" where it was, and what to do (make a
# context current); nowhere "device 255", neither in the report's text
# nor in `record`'s summary. The JSON keeps the ordinal 255
# (doc/report-schema.md). When the program gives up right after the
# refusal, how it ended names that call where it was made (its line in
# main, from the refusal's stack), not the call's name again. Against the program's own
# printout.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
program="$trace_builddir/tests/programs/drv-no-context"
[ -x "$program" ] || tap_fail_all "programs/drv-no-context is not built"

cli_record run -o "$lttng_tmp/t" -- "$program"
cli_status_is "record: the program's status" 0
fact() {
	sed -n "s/^# fact $1=//p" "$lttng_tmp/run.out" | head -n 1
}
is "the program: cuMemAlloc with no context returned CUDA_ERROR_INVALID_CONTEXT" \
	"$(fact no_context)" 201
is "the program: with a context, it allocated" "$(fact with_context)" 0

"$cli_bin" report "$lttng_tmp/t" >"$lttng_tmp/text.out" 2>"$lttng_tmp/text.err"
is "report: exits 0" "$?" 0
"$cli_bin" report --format json "$lttng_tmp/t" >"$lttng_tmp/json.out" 2>"$lttng_tmp/json.err"
is "report --format json: exits 0" "$?" 0

# The first page and record's summary, each on one line (the report wraps).
sed -n '1,/^The main tables/p' "$lttng_tmp/text.out" | tr -s ' \n' '  ' >"$lttng_tmp/page"
tr -s ' \n' '  ' <"$lttng_tmp/run.err" >"$lttng_tmp/summary"
ok "first page: the failure, with no current context, not a lack of memory" grep -q \
	'cuMemAlloc_v2 of 4.00 MiB failed with no current context: a CUDA error, not a lack of memory' \
	"$lttng_tmp/page"
ok "first page: where it was, no device" \
	grep -q 'Where: [^ ]* (pid [0-9]*), no device, at main' "$lttng_tmp/page"
ok "first page: what to do, make a context current" \
	grep -q 'Do: make a context current on the thread before it allocates' "$lttng_tmp/page"
ok "report: no 'device 255' anywhere" sh -c "! grep -q 'device 255' '$lttng_tmp/text.out'"
ok "record's summary: no 'device 255'" sh -c "! grep -q 'device 255' '$lttng_tmp/run.err'"
ok "record's summary: the failure with no current context" \
	grep -q 'failed with no current context' "$lttng_tmp/summary"

"$PYTHON3" - "$lttng_tmp/json.out" >"$lttng_tmp/json.tap" <<'PY'
import json
import sys

report = json.load(open(sys.argv[1], encoding="utf-8"))
failures = report["memory"]["failures"]
print("ok 1 - one failure" if len(failures) == 1 else
      f"not ok 1 - one failure ({len(failures)})")
print("ok 2 - its device is 255, none" if failures and failures[0].get("device") == 255
      else f"not ok 2 - its device is 255, none ({failures})")
devices = {d["device"] for d in report["memory"]["devices"] if d.get("peak_bytes")}
print("ok 3 - the later allocation is on device 0" if devices == {0}
      else f"not ok 3 - the later allocation is on device 0 ({devices})")
print("1..3")
PY
tap_relay "json" "$lttng_tmp/json.tap"

cli_record give-up -o "$lttng_tmp/t2" -- "$program" give-up
cli_status_is "give-up: the program's status" 1
"$cli_bin" report "$lttng_tmp/t2" >"$lttng_tmp/give-up.txt" 2>&1
sed -n '1,/^The main tables/p' "$lttng_tmp/give-up.txt" | tr -s ' \n' '  ' >"$lttng_tmp/page2"
# the line of the refused call, from the program's source
line=$(grep -n 'cuMemAlloc(&p, 4 \* MIB)' "$trace_srcdir/tests/programs/drv-no-context.c" | cut -d: -f1)
ok "give-up: how it ended names the refused call at its line" grep -q \
	"the last CUDA call that failed: cuMemAlloc_v2 returned CUDA_ERROR_INVALID_CONTEXT at main (drv-no-context.c:$line)" \
	"$lttng_tmp/page2"
ok "give-up: and says where to start" \
	grep -q "Do: start at main (drv-no-context.c:$line), where cuMemAlloc_v2 failed" "$lttng_tmp/page2"
tap_done
