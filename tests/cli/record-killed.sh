#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A `cudatrace record` killed with SIGKILL leaves its session in the daemon
# and its trace with LTTng's modes (0770 and 0660 under umask 000). The
# next command that reads or lists traces, not only the next record,
# closes such a session once the programs it records are gone, makes the
# trace private and marks its notes: `cudatrace report` then reads it
# whole. While the program still runs, the session is left alone, and the
# report says the trace is cut (its recorder died, its session open). The
# directory of the Python probe, which record removes as it ends, goes
# with the session.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
umask 000
cli_with_daemon
# The probe's directories, where the test can see them.
TMPDIR=$lttng_tmp/tmp
export TMPDIR
mkdir "$TMPDIR"

# private DIR: every directory under DIR (and DIR) 0700, every file 0600.
private() {
	[ -z "$(find "$1" \( -type d ! -perm 0700 \) -o \( -type f ! -perm 0600 \) -print)" ]
}

# report TAG DIR: `cudatrace report --format json` of DIR, into TAG.json and TAG.err.
report() {
	report_status=0
	"$cli_bin" report --format json -o "$lttng_tmp/$1.json" "$2" 2>"$lttng_tmp/$1.err" ||
		report_status=$?
}

# field TAG EXPR: EXPR of TAG.json, in Python.
field() {
	"$trace_python" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" \
		"$lttng_tmp/$1.json"
}

# ---- its program still runs: the session is left alone, the trace said to be cut
cli_start_paused open -o "$lttng_tmp/open"
open_rec=$rec_pid
open_script=$script_pid
kill -KILL $open_rec
wait $open_rec 2>/dev/null
ok "open: LTTng's files are not private while the session records" \
	sh -c '! "$@"' sh private "$lttng_tmp/open"
report open-report "$lttng_tmp/open"
ok "open: it leaves the session alone, as its program runs" \
	cli_has open-report "left the session cudatrace-.* alone: it still records its program"
ok "open: it says the trace is cut, and why" \
	cli_has open-report "the trace in $lttng_tmp/open was cut: its cudatrace record \\(pid $open_rec\\) died"
# LTTng may not have written the metadata yet: then there is no report (exit 2)
if [ "$report_status" = 0 ]; then
	is "open: the report is not complete" "$(field open-report "d['trace']['complete']")" False
else
	is "open: with nothing readable yet, cudatrace report exits 2" "$report_status" 2
fi
is "open: the session is still there" "$(cli_sessions)" 1
ok "open: and so is its Python probe, for the interpreters its program may start" \
	test -e "$(echo "$TMPDIR"/cudatrace-python-*/sitecustomize.py)"

# ---- its program ends: the next list closes the session
kill -KILL $open_script
list_status=0
"$cli_bin" list "$lttng_tmp" >"$lttng_tmp/list.out" 2>"$lttng_tmp/list.err" || list_status=$?
is "list: exits with 0" "$list_status" 0
ok "list: it closed the session and says where its trace is" \
	cli_has list "closed the session cudatrace-.* left by a cudatrace record that died \\(pid $open_rec\\); its trace is in $lttng_tmp/open"
is "list: no session is left" "$(cli_sessions)" 0
ok "list: the trace is private now" private "$lttng_tmp/open"
is "list: the Python probe's directory went with the session" "$(ls -A "$TMPDIR")" ""
ok "list: its notes say its recorder died" grep -qx 'end=abandoned' "$lttng_tmp/open/cudatrace.info"
ok "list: and its line says so" grep -q "open .*recorder died" "$lttng_tmp/list.out"
report open-closed "$lttng_tmp/open"
is "open: then cudatrace report succeeds" "$report_status" 0
is "open: and the trace is complete" "$(field open-closed "d['trace']['complete']")" True
ok "open: the report says how the program ended was not recorded" \
	cli_has open-closed "died; its session was closed once .* had ended, so the trace is whole"
cli_trace_checked open "open: the closed trace reads back as the ledger has it"

# ---- record and program killed: the next report closes the session and reads the trace
cli_start_paused gone -o "$lttng_tmp/gone"
gone_rec=$rec_pid
kill -KILL $gone_rec
wait $gone_rec 2>/dev/null
kill -KILL $script_pid
report gone-report "$lttng_tmp/gone"
is "gone: cudatrace report succeeds" "$report_status" 0
ok "gone: it closed the session" \
	cli_has gone-report "closed the session cudatrace-.* \\(pid $gone_rec\\); its trace is in $lttng_tmp/gone"
is "gone: the report is complete" "$(field gone-report "d['trace']['complete']")" True
ok "gone: the trace is private" private "$lttng_tmp/gone"
is "gone: no session is left" "$(cli_sessions)" 0
ok "gone: no pid file is left" test -z "$(ls /var/run/lttng/cudatrace)"
is "gone: nor the Python probe's directory" "$(ls -A "$TMPDIR")" ""
tap_done
