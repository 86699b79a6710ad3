#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Repeats (doc/events.md, "repeat"), from make-ctf.py's "repeats" trace,
# whose truth it prints, its shapes computed by tests/lib/shapes.py from
# the document rather than by the C of contract/shape.h: copies, memsets
# and launches written whole, then repeated by their thread, one repeat's
# call across a 2^32 ns boundary of the clock (its entry read back from
# the low bits); copies and memsets on successive slices of a buffer,
# each a repeat_moved of the whole one, which a repeat after them still
# stands for; two shapes in one set of slots, both repeated; the calls of a
# tracer that kept one way a set (five shapes whose low bits meet); and repeats
# that stand for nothing in the trace (a third shape took their way of the
# set, no event of theirs was written, another thread
# wrote it, a repeat_moved's base is in no slot or is a launch), counted
# and left out:
#   - `cudatrace report --format json`: the transfers' copies, bytes,
#     host and GPU time, the api table's calls and host time, the kernels'
#     runs, and the trace section's unmatched_repeats and
#     unmatched_gpu_records (the record of a lost repeat's copy) are the
#     truth's; the text report's first page says what was lost;
#   - `cudatrace export --format ctf`: every copy and kernel run whose
#     call is in the trace, none other.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
report_synthetic repeats
ok "text: the first page says 5 calls repeat a call whose event is not in the trace" \
	grep -q "^Lost: 5 calls repeat a call whose event is not in the trace" "$report_tmp/text.out"

"$report_python" "$report_here/check-repeats.py" "$report_tmp" >"$report_tmp/check.tap" 2>&1
tap_relay "repeats" "$report_tmp/check.tap"
tap_done
