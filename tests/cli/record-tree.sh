#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record` records the command's process tree from each
# process's very first event, and nothing else of the user's: a launcher
# shell starts its worker as a child (not with exec), and the worker
# allocates as soon as it starts (tests/programs/accounting reset), so a
# recorder that had to notice the worker first would lose those events.
# Every operation of the worker's ledger is in the trace. A second
# `cudatrace record` runs at the same time (two notebooks): neither trace
# holds the other's program. The launcher also starts a process that
# clears CUDATRACE_SESSION and one that names another session: neither
# is recorded.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon
trace_require_program accounting
program=$trace_cmd

# The other notebook: a record whose program waits at a gate meanwhile.
CLI_LEAK="" cli_start_gated other -o "$lttng_tmp/other"
other_rec=$rec_pid

cat >"$lttng_tmp/launcher.sh" <<'LAUNCHER'
#!/bin/sh
# launcher.sh DIR PROGRAM: the worker as a child, then two outsiders.
dir=$1
shift
echo "launcher $$"
"$@" reset
status=$?
CUDASIM_LEDGER="$dir/cleared.ledger" env -u CUDATRACE_SESSION "$@" reset || status=$?
CUDASIM_LEDGER="$dir/renamed.ledger" CUDATRACE_SESSION=cudatrace-elsewhere "$@" reset ||
	status=$?
exit $status
LAUNCHER
rm -f "$lttng_tmp/cleared.ledger" "$lttng_tmp/renamed.ledger"
cli_record tree -o "$lttng_tmp/tree" -- /bin/sh "$lttng_tmp/launcher.sh" "$lttng_tmp" "$program"
cli_status_is "the launcher and its processes exit with 0" 0

cli_open_gate other
wait $other_rec
is "the other record exits with its program's status" "$?" 0

# The processes, from their ledgers.
pid_of() {
	sed -n 's/.* pid=\([0-9]*\) .*/\1/p' "$1" | head -n 1
}
worker=$(pid_of "$lttng_tmp/tree.ledger")
cleared=$(pid_of "$lttng_tmp/cleared.ledger")
renamed=$(pid_of "$lttng_tmp/renamed.ledger")
other=$(pid_of "$lttng_tmp/other.ledger")
launcher=$(sed -n 's/^launcher //p' "$lttng_tmp/tree.out")
ok "the worker ($worker) is a child of the launcher ($launcher), not it" \
	test -n "$worker" -a -n "$launcher" -a "$worker" != "$launcher"
ok "the outsiders ran ($cleared, $renamed), and the other program ($other)" \
	test -n "$cleared" -a -n "$renamed" -a -n "$other"

vpids() {
	sed -n 's/^event=cudatrace:[^ ]* .*vpid=\([0-9]*\).*/\1/p' "$lttng_tmp/$1.events" |
		sort -u | tr '\n' ' '
}
if trace_read tree "$lttng_tmp/tree"; then
	trace_check tree --checks readable,ops,live,addresses,corr
	is "the trace holds the worker's events only" "$(vpids tree)" "$worker "
	is "the worker's tracer_info, written before its first call, is in it" \
		"$(trace_count tree tracer_info)" 1
fi
if trace_read other "$lttng_tmp/other"; then
	is "the other record's trace holds its program's events only" "$(vpids other)" "$other "
fi
tap_done
