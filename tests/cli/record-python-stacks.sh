#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Python lines in the call stacks, end to end: `cudatrace record` of a
# Python program that drives the runtime through ctypes (the GIL released
# during each call), tests/cli/python-leaks.py, which leaks from one
# function, allocates and frees from another, leaks from a thread of its
# own and fails once. The report must charge the leaks and the failure to
# the Python function and the file:line that the program's source gives
# (each allocating line ends with "# site of FUNCTION"), not to the
# function that freed, and keep the Python frames in the JSON stack in
# place of the interpreter's.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
program="$cli_here/python-leaks.py"
rounds=3

cli_record pystacks -o "$lttng_tmp/pystacks" -- "$trace_python" "$program" $rounds
cli_status_is "python-leaks.py: record exits with the program's status" 0
ok "the program ran to its end" grep -qx "kept $((rounds + 1)) allocations" \
	"$lttng_tmp/pystacks.out"
cli_trace_checked pystacks "the trace reads back and holds the ledger's operations"
ok "call_stack events carry the Python frames" \
	grep -q 'event=cudatrace:call_stack .*python=.*leak_here' "$lttng_tmp/pystacks.events"

"$cli_bin" report --format json -o "$lttng_tmp/pystacks.json" "$lttng_tmp/pystacks" \
	2>"$lttng_tmp/report.err"
is "cudatrace report reads the trace" "$?" 0
"$cli_bin" report -o "$lttng_tmp/pystacks.txt" "$lttng_tmp/pystacks" 2>>"$lttng_tmp/report.err"
# the name the traced interpreter itself gives threading.Thread.run
thread_run=$("$trace_python" -c 'import threading
c = threading.Thread.run.__code__
print(getattr(c, "co_qualname", c.co_name))')
cli_checks python-stack-sites.py /usr/bin/python3 "$cli_here/python-stack-sites.py" \
	"$lttng_tmp/pystacks.json" "$program" $rounds "$thread_run"
leak_line=$(grep -n '# site of leak_here$' "$program" | cut -d: -f1)
ok "the text report names the leaking Python line and function" \
	grep -q "python-leaks.py:$leak_line in leak_here" "$lttng_tmp/pystacks.txt"
ok "... and not the function that freed" cli_lacks "$lttng_tmp/pystacks.txt" 'freed_here'
fail_line=$(grep -n '# site of fail_here$' "$program" | cut -d: -f1)
ok "... and the failed allocation's line" \
	grep -q "python-leaks.py:$fail_line in fail_here" "$lttng_tmp/pystacks.txt"

# CUDATRACE_STACK_DEPTH=0: no stack, Python's neither.
CUDATRACE_STACK_DEPTH=0 cli_record pynostack -o "$lttng_tmp/pynostack" -- \
	"$trace_python" "$program" 1
cli_status_is "CUDATRACE_STACK_DEPTH=0: record exits with the program's status" 0
"$cli_bin" report -o "$lttng_tmp/pynostack.txt" "$lttng_tmp/pynostack" 2>/dev/null
ok "no Python line is named" cli_lacks "$lttng_tmp/pynostack.txt" 'in leak_here'
tap_done
