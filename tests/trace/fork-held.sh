#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A traced program forks while another of its threads holds lttng-ust's
# mutexes, as lttng-ust's listener threads hold them while they carry out a
# session daemon's command (programs/fork-held); the child leaves through
# exit(3), whose lttng-ust destructor takes those mutexes. The tracer
# brackets fork(2) as liblttng-ust-fork.so would (lttng-ust(3), "Using
# LTTng-UST with daemons"): the fork waits for the holder, and the child
# exits. With liblttng-ust-fork.so preloaded, its fork() does that, and the
# tracer's handlers stand aside: a second lttng_ust_before_fork() in the
# same fork would wait on the mutex the first one took.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_program fork-held
trace_forks
program=$trace_cmd
trace_daemon_or_fail

# held_run TAG CMD...: the run exits 0, and its child exited with 0.
held_run() {
	held_tag=$1
	shift
	trace_session "$held_tag" || return 0
	TRACE_TIMEOUT=60 trace_run "$held_tag" traced "$@"
	lttng_session_end "$held_tag"
	is "$held_tag: the program exits with 0" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$held_tag"
	ok "$held_tag: its child, forked while lttng-ust's mutexes were held, exited" \
		grep -q '^child=[0-9]* status=0$' "$lttng_tmp/$held_tag.out"
	[ "$trace_status" = 0 ] || sed 's/^/#   /' "$lttng_tmp/$held_tag.out"
}

held_run held $program

ust_fork=""
for dir in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
	[ -z "$ust_fork" ] && [ -e "$dir/liblttng-ust-fork.so.1" ] && ust_fork="$dir/liblttng-ust-fork.so.1"
done
if [ -z "$ust_fork" ]; then
	tap_result 1 "liblttng-ust-fork.so.1 is installed (Debian: liblttng-ust1)"
else
	# A sanitizer build's program needs the sanitizer's runtime first.
	asan=$(trace_asan_runtime)
	held_run preloaded env LD_PRELOAD="${asan:+$asan:}$ust_fork" $program
fi
tap_done
