#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The script example of cudatrace-report(1) runs as printed: its lines,
# as man shows them (roff's \- made -), are run by sh on a trace of
# make-ctf.py with its failed allocation, its pid and TRACE put in, and
# print the failure's verdict and explanation.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
page="$here/../../doc/man/cudatrace-report.1"
[ -r "$page" ] || tap_fail_all "no manual page at $page"
trace="$report_tmp/basic"
"$report_python" "$report_here/make-ctf.py" basic "$trace" >"$report_tmp/truth.json" ||
	tap_fail_all "make-ctf.py makes the basic trace"
pid=$("$report_python" -c 'import json, sys; print(json.load(sys.stdin)["pid"])' \
	<"$report_tmp/truth.json") || tap_fail_all "the truth names the failure's pid"

# The example: the .nf block after "The failures of one process".
sed -n '/^The failures of one process/,/^\.fi/p' "$page" | sed -e '1,/^\.nf/d' -e '/^\.fi/d' \
	-e 's/\\-/-/g' -e "s/4242/$pid/" -e "s|TRACE|$trace|" \
	-e "s|^cudatrace |\"\$CUDATRACE\" |" -e "s|^python3 |$report_python |" \
	>"$report_tmp/example.sh"
ok "the page has the example" grep -q 'json.load' "$report_tmp/example.sh"
CUDATRACE=$report_cmd sh "$report_tmp/example.sh" >"$report_tmp/example.out" 2>"$report_tmp/example.err"
is "it runs as printed" "$?" 0
sed 's/^/#   /' "$report_tmp/example.err" | head -n 5
ok "it prints the failure's verdict and explanation" \
	grep -Eq '^(out_of_memory|fragmented|pool_cached|held_elsewhere|unknown|cuda_error) .+' "$report_tmp/example.out"
tap_done
