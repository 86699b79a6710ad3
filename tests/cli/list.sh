#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace list [DIR]`: one line per trace in DIR, oldest first, with
# program, date, duration, peak GPU memory, failures and how the program
# ended, for traces of `cudatrace record` (from their notes) and for
# traces made by hand (read); directories that hold no trace are left
# out, and symbolic links are not followed (a link to / is not walked);
# bad arguments give a message and exit status 2.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
traces="$lttng_tmp/traces"
mkdir -p "$traces/not-a-trace"
echo notes >"$traces/not-a-trace/readme.txt"

cli_record ok -o "$traces/ok" -- "$trace_python" "$cli_workload" --steps 2 --leak
cli_status_is "a first trace is recorded" 0
cli_record_killed killed -o "$traces/killed" -- \
	"$trace_python" "$cli_workload" --steps 1 --fail-alloc --pause
# A trace made without cudatrace record, so without its notes.
if lttng_session_begin byhand; then
	trace_run byhand traced "$trace_python" "$cli_workload" --steps 1
	lttng_session_end byhand
	mv "$lttng_trace" "$traces/byhand"
fi

"$cli_bin" list "$traces" >"$lttng_tmp/list.out" 2>"$lttng_tmp/list.err"
is "list exits with 0" "$?" 0
sed 's/^/#   /' "$lttng_tmp/list.out"
is "a header and three traces" "$(wc -l <"$lttng_tmp/list.out")" 4
ok "the header names the columns" \
	grep -q '^TRACE  *PROGRAM  *DATE  *DURATION  *PEAK  *FAILURES  *END' "$lttng_tmp/list.out"
ok "the recorded trace: program, peak (3 MiB) and how it ended" \
	grep -Eq '^ok  +python3 +[0-9-]+ [0-9:]+ +[0-9.]+ s +3\.00 MiB +0  +exit 0$' "$lttng_tmp/list.out"
ok "the killed trace: its failure and the signal" \
	grep -Eq '^killed  +python3 .* 1  +killed \(SIGKILL\)$' "$lttng_tmp/list.out"
ok "the trace made by hand is read: program and peak" \
	grep -Eq '^byhand  +python3 .* 2\.00 MiB +0  +-$' "$lttng_tmp/list.out"
ok "a directory without a trace is left out" cli_lacks "$lttng_tmp/list.out" 'not-a-trace'
ok "oldest first" test "$(sed -n 2p "$lttng_tmp/list.out" | cut -c1-3)" = "ok "

"$cli_bin" list "$traces/ok" >"$lttng_tmp/one.out" 2>&1
is "a trace directory itself: listed alone" "$(wc -l <"$lttng_tmp/one.out")" 2
(cd "$traces" && "$cli_bin" list >"$lttng_tmp/cwd.out" 2>&1)
is "no argument: the current directory" "$(wc -l <"$lttng_tmp/cwd.out")" 4
mkdir -p "$lttng_tmp/empty"
"$cli_bin" list "$lttng_tmp/empty" >"$lttng_tmp/empty.out" 2>&1
is "an empty directory: exit 0" "$?" 0
ok "an empty directory: says there is no trace" grep -q '^No cudatrace traces in' "$lttng_tmp/empty.out"

# Symbolic links are not followed, among the entries or below them: a link
# to / is not walked, a link to a trace does not list it twice.
mkdir -p "$lttng_tmp/links/dir/sub"
ln -s / "$lttng_tmp/links/dir/sub/root"
ln -s / "$lttng_tmp/links/root"
ln -s "$traces/ok" "$lttng_tmp/links/ok-link"
timeout 60 "$cli_bin" list "$lttng_tmp/links" >"$lttng_tmp/links.out" 2>&1
is "links: exit 0" "$?" 0
ok "links: not followed, no trace listed" grep -q '^No cudatrace traces in' "$lttng_tmp/links.out"
timeout 60 "$cli_bin" list /proc >"$lttng_tmp/proc.out" 2>&1
is "/proc, whose links lead to / again and again: ends, with exit 0" "$?" 0
ok "/proc: holds no trace" grep -q '^No cudatrace traces in /proc' "$lttng_tmp/proc.out"

cli_fails list missing "cudatrace list: .*/nowhere: No such file or directory" "$lttng_tmp/nowhere"
cli_fails list file "not a directory" "$traces/not-a-trace/readme.txt"
cli_fails list two-dirs "one directory at most" "$traces" "$traces"
cli_fails list bad-option "unrecognized option" --bogus
tap_done
