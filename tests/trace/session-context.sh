#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A session that records a process tree from its very first event, with no
# PID tracker: libcudatrace.so provides the LTTng application context
# $app.cudatrace:session, whose value is CUDATRACE_SESSION (children
# inherit it), and the session filters on it, set up here with the lttng
# command line directly. A launcher shell starts its worker without exec,
# the worker allocating as soon as it starts (tests/programs/accounting
# reset): every operation of its ledger is in the trace. A process with
# another value, and one without the variable, run under the same session:
# none of their events is. The context adds nothing to the events.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_program accounting
program=$trace_cmd
trace_daemon_or_fail

name="cudatrace-ctx-$$"
tag=tree
lttng_trace="$lttng_tmp/$tag"
if {
	lttng_client create "$tag" --output="$lttng_trace" &&
		lttng_sessions="$lttng_sessions $tag" &&
		lttng_client enable-channel --userspace --session="$tag" --subbuf-size=1M \
			--num-subbuf=8 cudatrace &&
		lttng_client enable-event --userspace --session="$tag" --channel=cudatrace \
			'cudatrace:*' --filter "\$app.cudatrace:session == \"$name\"" &&
		lttng_client add-context --userspace --session="$tag" --channel=cudatrace \
			-t vpid -t vtid -t procname &&
		lttng_client start "$tag"
} >"$lttng_tmp/lttng-$tag.log" 2>&1; then
	tap_result 0 "the session filtering on \$app.cudatrace:session starts"
else
	tap_result 1 "the session filtering on \$app.cudatrace:session starts"
	sed 's/^/#   /' "$lttng_tmp/lttng-$tag.log"
	tap_done
fi

# The launcher: a shell that runs its worker as a child, not with exec.
cat >"$lttng_tmp/launcher.sh" <<'LAUNCHER'
#!/bin/sh
echo "launcher $$"
"$@"
status=$?
echo "worker ended: $status"
exit $status
LAUNCHER

CUDATRACE_SESSION=$name
export CUDATRACE_SESSION
trace_run worker traced /bin/sh "$lttng_tmp/launcher.sh" "$program" reset
is "worker: exit status" "$trace_status" 0
[ "$trace_status" = 0 ] || trace_show_err worker
CUDATRACE_SESSION="$name-other"
trace_run other traced "$program" reset
is "another session's process: exit status" "$trace_status" 0
unset CUDATRACE_SESSION
trace_run none traced "$program" reset
is "a process without CUDATRACE_SESSION: exit status" "$trace_status" 0
lttng_session_end "$tag"

# The processes, from their ledgers.
pid_of() {
	sed -n 's/.* pid=\([0-9]*\) .*/\1/p' "$lttng_tmp/$1.ledger" | head -n 1
}
worker=$(pid_of worker)
other=$(pid_of other)
none=$(pid_of none)
launcher=$(sed -n 's/^launcher //p' "$lttng_tmp/worker.out")
ok "the worker ($worker) is not the launcher ($launcher)" \
	test -n "$worker" -a -n "$launcher" -a "$worker" != "$launcher"
ok "the other processes ran ($other, $none)" test -n "$other" -a -n "$none"

if trace_read "$tag"; then
	"$trace_python" "$trace_checker" --ledger "$lttng_tmp/worker.ledger" \
		--trace "$lttng_tmp/$tag.events" --checks readable,ops,live,addresses,corr,gputime \
		>"$lttng_tmp/worker.tap" 2>&1
	tap_relay worker "$lttng_tmp/worker.tap"
	vpids=$(sed -n 's/^event=cudatrace:[^ ]* .*vpid=\([0-9]*\).*/\1/p' \
		"$lttng_tmp/$tag.events" | sort -u | tr '\n' ' ')
	is "the trace holds the worker's events only" "$vpids" "$worker "
	# From its start: the tracer_info it emits before its first call.
	is "the worker's tracer_info is in the trace" \
		"$(trace_count "$tag" tracer_info)" 1
	# A filter only: no context field in the events.
	is "no \$app context in the events" "$(grep -c '_app_cudatrace_session' \
		"$lttng_tmp/$tag.events" || :)" 0
fi

# The contexts added to a channel, as any session may: each event carries
# the process's value (none without the variable), as the field
# _app_cudatrace_session of its context, and its number as
# _app_cudatrace_key_session, computed here from doc/events.md's
# description (the key `cudatrace record` filters on).
tag=recorded
lttng_trace="$lttng_tmp/$tag"
if {
	lttng_client create "$tag" --output="$lttng_trace" &&
		lttng_sessions="$lttng_sessions $tag" &&
		lttng_client enable-channel --userspace --session="$tag" cudatrace &&
		lttng_client enable-event --userspace --session="$tag" --channel=cudatrace \
			'cudatrace:*' &&
		lttng_client add-context --userspace --session="$tag" --channel=cudatrace \
			-t vpid -t vtid -t '$app.cudatrace:session' \
			-t '$app.cudatrace_key:session' &&
		lttng_client start "$tag"
} >"$lttng_tmp/lttng-$tag.log" 2>&1; then
	CUDATRACE_SESSION=$name
	export CUDATRACE_SESSION
	trace_run with-value traced "$program" release-fails
	unset CUDATRACE_SESSION
	trace_run without-value traced "$program" release-fails
	lttng_session_end "$tag"
	if trace_read "$tag"; then
		with=$(pid_of with-value)
		without=$(pid_of without-value)
		is "each event of the process with the variable carries its value" \
			"$(grep -c "^event=cudatrace:.* vpid=$with .*_app_cudatrace_session=$name\( \|$\)" \
				"$lttng_tmp/$tag.events")" \
			"$(grep -c "^event=cudatrace:.* vpid=$with " "$lttng_tmp/$tag.events")"
		is "no event of the other carries a value" \
			"$(grep -c "^event=cudatrace:.* vpid=$without .*_app_cudatrace_session_tag=_none " \
				"$lttng_tmp/$tag.events")" \
			"$(grep -c "^event=cudatrace:.* vpid=$without " "$lttng_tmp/$tag.events")"
		ok "both processes are in the trace" test -n "$(grep -m 1 \
			"^event=cudatrace:.* vpid=$without " "$lttng_tmp/$tag.events")"
		key=$("$trace_python" -c '
import sys
M = (1 << 64) - 1
h = 0xcbf29ce484222325
for b in sys.argv[1].encode():
    h = ((h ^ b) * 0x100000001b3) & M
h ^= h >> 30
h = (h * 0xbf58476d1ce4e5b9) & M
h ^= h >> 27
h = (h * 0x94d049bb133111eb) & M
h ^= h >> 31
print((h >> 2) | 1)' "$name")
		is "each event of the process with the variable carries its key" \
			"$(grep -c "^event=cudatrace:.* vpid=$with .*_app_cudatrace_key_session=$key\( \|$\)" \
				"$lttng_tmp/$tag.events")" \
			"$(grep -c "^event=cudatrace:.* vpid=$with " "$lttng_tmp/$tag.events")"
		is "no event of the other carries a key" \
			"$(grep -c "^event=cudatrace:.* vpid=$without .*_app_cudatrace_key_session_tag=_none " \
				"$lttng_tmp/$tag.events")" \
			"$(grep -c "^event=cudatrace:.* vpid=$without " "$lttng_tmp/$tag.events")"
	fi
else
	tap_result 1 "a session with the context added to its channel starts"
	sed 's/^/#   /' "$lttng_tmp/lttng-$tag.log"
fi
tap_done
