#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Call stacks at allocations, end to end: `cudatrace record` of a C
# program built -O2 -g -fomit-frame-pointer (tests/programs/stack-alloc)
# that leaks from one function, allocates and frees from another, leaks
# from a function inlined into main and from a function of a shared
# library it links, fails once from a fifth, and leaks from a library it
# loads with dlopen after CUDA started (after lttng-ust's statedump). The
# program prints each allocation's function and file:line (its own ground
# truth); the report must charge the leaks and the failure to exactly
# those sites, and name neither the function that freed nor CUDA's or the
# tracer's frames. Debuginfod servers are asked only when the user allows
# it.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
trace_require_program stack-alloc
program=$trace_cmd

cli_record stacks -o "$lttng_tmp/stacks" -- "$program" 3
cli_status_is "stack-alloc: record exits with the program's status" 0
cli_trace_checked stacks "the trace reads back and holds the ledger's operations"
ok "the program printed its allocations" grep -q '^leak leak_here ' "$lttng_tmp/stacks.out"

# The trace holds the objects the addresses are in (lttng-ust's statedump).
ok "the trace holds lttng-ust's statedump of the program" \
	grep -q 'event=lttng_ust_statedump:bin_info .*stack-alloc' "$lttng_tmp/stacks.events"
ok "and of the shared library" \
	grep -q 'event=lttng_ust_statedump:bin_info .*libstack-lib.so' "$lttng_tmp/stacks.events"
ok "but not of the one loaded later, which library_load gives with its range" \
	sh -c "! grep -q 'event=lttng_ust_statedump:bin_info .*libstack-late.so' '$lttng_tmp/stacks.events' &&
		grep -q 'event=cudatrace:library_load .*libstack-late.so.* base=0x[1-9a-f]' '$lttng_tmp/stacks.events'"

# The report names the program's functions and lines, and only them.
"$cli_bin" report --format json -o "$lttng_tmp/stacks.json" "$lttng_tmp/stacks" \
	2>"$lttng_tmp/report.err"
is "cudatrace report reads the trace" "$?" 0
"$cli_bin" report -o "$lttng_tmp/stacks.txt" "$lttng_tmp/stacks" 2>>"$lttng_tmp/report.err"
for key in leak_sites peak_sites failures; do
	cli_checks "stack-sites.py $key" /usr/bin/python3 "$cli_here/stack-sites.py" \
		"$lttng_tmp/stacks.json" "$lttng_tmp/stacks.out" "$key"
done
line=$(sed -n 's/^leak leak_here .*:\([0-9]*\) .*/\1/p' "$lttng_tmp/stacks.out" | head -1)
ok "the text report names the leaking function and its file:line" \
	grep -q "leak_here (stack-alloc.c:$line)" "$lttng_tmp/stacks.txt"
lib_line=$(sed -n 's/^leak lib_leak .*:\([0-9]*\) .*/\1/p' "$lttng_tmp/stacks.out" | head -1)
ok "... and the shared library's" grep -q "lib_leak (stack-lib.c:$lib_line)" "$lttng_tmp/stacks.txt"
ok "... and not the function that freed" cli_lacks "$lttng_tmp/stacks.txt" 'freed_here'
fail_line=$(sed -n 's/^failed fail_here .*:\([0-9]*\) .*/\1/p' "$lttng_tmp/stacks.out")
ok "... and the failed allocation's function and file:line" \
	grep -q "fail_here (stack-alloc.c:$fail_line)" "$lttng_tmp/stacks.txt"
ok "the text report leaves the stacks to JSON" cli_lacks "$lttng_tmp/stacks.txt" 'folded'
# The first page charges the failure to its line too (its lines joined:
# the page wraps them).
"$cli_bin" report --brief "$lttng_tmp/stacks" 2>>"$lttng_tmp/report.err" | tr -s '\n ' '  ' \
	>"$lttng_tmp/stacks-brief.txt"
ok "the first page's failure is at the failed allocation's function and file:line" \
	grep -q "at fail_here (stack-alloc.c:$fail_line)" "$lttng_tmp/stacks-brief.txt"
# --details and HTML show every list, still without the stacks.
"$cli_bin" report --details -o "$lttng_tmp/stacks-details.txt" "$lttng_tmp/stacks" \
	2>>"$lttng_tmp/report.err"
ok "--details names the leaking function and its file:line" \
	grep -q "leak_here (stack-alloc.c:$line)" "$lttng_tmp/stacks-details.txt"
ok "... and leaves the stacks to JSON" cli_lacks "$lttng_tmp/stacks-details.txt" 'folded'
"$cli_bin" report --format html --details -o "$lttng_tmp/stacks.html" "$lttng_tmp/stacks" \
	2>>"$lttng_tmp/report.err"
ok "the HTML report names the leaking function and its file:line" \
	grep -q "leak_here (stack-alloc.c:$line)" "$lttng_tmp/stacks.html"
ok "... and leaves the stacks to JSON" cli_lacks "$lttng_tmp/stacks.html" 'folded'

# Copies and launches get no stack unless CUDATRACE_STACK_CALLS=1 asks:
# then a call_site before each gives its stack, with its correlation id.
memset_stacks() {
	awk '/^event=cudatrace:call_site / {
		site_corr = ""; stack = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^correlation_id=/) site_corr = substr($i, 16)
			if ($i ~ /^stack_id=/) stack = substr($i, 10)
		}
		next
	}
	/^event=cudatrace:memset / {
		corr = ""
		for (i = 1; i <= NF; i++) if ($i ~ /^correlation_id=/) corr = substr($i, 16)
		print (corr == site_corr ? stack : "none")
		site_corr = ""
	}' "$lttng_tmp/$1.events" | sort -u | tr '\n' ' '
}
is "by default, memsets have no call_site" "$(memset_stacks stacks)" "none "
CUDATRACE_STACK_CALLS=1 cli_record calls -o "$lttng_tmp/calls" -- "$program" 2
cli_status_is "CUDATRACE_STACK_CALLS=1: record exits with the program's status" 0
if trace_read calls "$lttng_tmp/calls"; then
	calls_stack=$(memset_stacks calls)
	ok "CUDATRACE_STACK_CALLS=1: both memsets follow a call_site of their call, with one stack ($calls_stack)" \
		test -n "$calls_stack" -a "$calls_stack" != "none " -a "$(echo $calls_stack | wc -w)" = 1
	ok "... which a call_stack event gives" \
		grep -q "^event=cudatrace:call_stack .*stack_id=${calls_stack% }[ ,]" \
		"$lttng_tmp/calls.events"
fi

# A trace read where the program's file is gone (another machine, a
# rebuild) names its frames from a copy found by build id (--debug-dir).
mkdir -p "$lttng_tmp/elsewhere"
cp "$program" "$lttng_tmp/elsewhere/stack-alloc"
cli_record moved -o "$lttng_tmp/moved" -- "$lttng_tmp/elsewhere/stack-alloc" 1
cli_status_is "a copy of the program: record exits with its status" 0
build_id=$(readelf -n "$lttng_tmp/elsewhere/stack-alloc" | sed -n 's/^ *Build ID: *//p')
ok "the program has a build id ($build_id)" test -n "$build_id"
by_id="$lttng_tmp/debug/.build-id/$(echo "$build_id" | cut -c1-2)"
mkdir -p "$by_id"
mv "$lttng_tmp/elsewhere/stack-alloc" "$by_id/$(echo "$build_id" | cut -c3-)"
"$cli_bin" report -o "$lttng_tmp/moved-lost.txt" "$lttng_tmp/moved" 2>/dev/null
ok "its file gone, the report cannot name the leaking function" \
	cli_lacks "$lttng_tmp/moved-lost.txt" 'leak_here \('
"$cli_bin" report --debug-dir "$lttng_tmp/debug" -o "$lttng_tmp/moved.txt" "$lttng_tmp/moved" \
	2>/dev/null
ok "--debug-dir: found by build id, it names it with its file:line" \
	grep -q "leak_here (stack-alloc.c:$line)" "$lttng_tmp/moved.txt"

# debuginfod servers (DEBUGINFOD_URLS, set for every login by some
# distributions) are asked for the debug information of the objects the
# report lacks (here the moved program's, whose file is gone) only with
# CUDATRACE_DEBUGINFOD=1: a server that answers 404 to all and notes what
# it is asked.
"$trace_python" -c 'import http.server, socketserver, sys
log = open(sys.argv[1], "a")
class Server(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        log.write(self.path + "\n")
        log.flush()
        self.send_response(404)
        self.end_headers()
    def log_message(self, *args):
        pass
with socketserver.TCPServer(("127.0.0.1", 0), Server) as s:
    open(sys.argv[2] + ".part", "w").write(str(s.server_address[1]))
    __import__("os").rename(sys.argv[2] + ".part", sys.argv[2])
    s.serve_forever()' "$lttng_tmp/asked" "$lttng_tmp/port" &
server=$!
ok "a debuginfod server listens" cli_wait_for "$lttng_tmp/port" '^[0-9]+$' $server
: >>"$lttng_tmp/asked"
urls="http://127.0.0.1:$(cat "$lttng_tmp/port")"
DEBUGINFOD_URLS=$urls DEBUGINFOD_CACHE_PATH="$lttng_tmp/debuginfod" \
	"$cli_bin" report -o "$lttng_tmp/unasked.txt" "$lttng_tmp/moved" 2>/dev/null
is "DEBUGINFOD_URLS alone: the report asks no server" "$(cat "$lttng_tmp/asked")" ""
CUDATRACE_DEBUGINFOD=1 DEBUGINFOD_URLS=$urls DEBUGINFOD_CACHE_PATH="$lttng_tmp/debuginfod" \
	"$cli_bin" report -o "$lttng_tmp/asked.txt" "$lttng_tmp/moved" 2>/dev/null
ok "CUDATRACE_DEBUGINFOD=1: it asks them for the program by its build id" \
	grep -q "^/buildid/$build_id/" "$lttng_tmp/asked"
ok "and, told nothing more, reports the same" cmp -s "$lttng_tmp/unasked.txt" "$lttng_tmp/asked.txt"
kill $server
wait $server 2>/dev/null

# CUDATRACE_STACK_DEPTH=0: no stack, and the sites are the calls again.
CUDATRACE_STACK_DEPTH=0 cli_record nostack -o "$lttng_tmp/nostack" -- "$program" 1
cli_status_is "CUDATRACE_STACK_DEPTH=0: record exits with the program's status" 0
"$cli_bin" report -o "$lttng_tmp/nostack.txt" "$lttng_tmp/nostack" 2>/dev/null
ok "no call_stack event is recorded" cli_lacks "$lttng_tmp/nostack.txt" 'leak_here'
ok "the sites are the calls" grep -q 'cudaMalloc' "$lttng_tmp/nostack.txt"
tap_done
