# SPDX-License-Identifier: MIT
#
# lttng-session.sh - a private LTTng session daemon for one test (POSIX sh).
#
# A test must never touch a session daemon it did not start, so it runs in
# a mount namespace of its own where /var/run/lttng and /dev/shm are fresh
# tmpfs mounts and LTTNG_HOME is a temporary directory: the daemon, the
# traced programs and the lttng client all meet there and nowhere else.
# Source tap.sh first, then this file, then:
#
#   lttng_private_ns "$@"        re-exec the script under `unshare -m`
#                                (a failed test when lttng or unshare is
#                                missing; the script skipped, "no
#                                unshare: ...", when the machine refuses
#                                a mount namespace)
#   lttng_private_dirs           mount the empty directories and make
#                                $lttng_tmp (no daemon yet: for tests of
#                                a program traced without one); returns 2
#                                when the mounts fail, 1 on other failures
#   lttng_private_dirs_or_end    the same, or the end of the script: the
#                                mounts refused skip it ("no unshare: "),
#                                any other error fails it
#   lttng_daemon_start           start lttng-sessiond (after
#                                lttng_private_dirs_or_end, which it calls
#                                if need be); its pid is kept and it is
#                                killed on every exit path
#   lttng_session_begin NAME     create NAME writing to $lttng_tmp/NAME,
#                                enable cudatrace:* in one channel with the
#                                vpid, vtid and procname contexts (or
#                                LTTNG_TEST_CONTEXTS), start;
#                                sets lttng_trace to the trace directory
#   lttng_session_end NAME       stop (waits until the data is on disk) and
#                                destroy NAME
#   lttng_daemon_stop            kill the daemon by its pid and wait for it
#
# Variables read: LTTNG_TEST_SUBBUF_SIZE (default 1M) and
# LTTNG_TEST_NUM_SUBBUF (default 8) size the channel; LTTNG_TEST_EVENTS
# (default 'cudatrace:*') lists the events to enable, comma-separated;
# LTTNG_TEST_CONTEXTS (default 'vpid vtid procname') the contexts to add
# (the benchmark and the size test use `cudatrace record`'s: 'vpid vtid');
# LTTNG_TEST_GPU_CONTEXTS, when set and LTTNG_TEST_EVENTS is not, puts the
# GPU group's events (contract/events.def, under $trace_srcdir) in a second
# channel, cudatrace-gpu, with those contexts, as `cudatrace record` does
# (cli/session.c; the benchmark: 'vpid');
# LTTNG_TEST_KEEP=1 keeps $lttng_tmp (traces, ledgers, logs) for a
# post-mortem.

lttng_tmp=""
lttng_trace=""
lttng_daemon_pid=""
lttng_sessions=""

# The client never spawns a daemon by itself: an unexpected one would be
# neither ours to kill nor in the namespace we think.
lttng_client() {
	lttng --no-sessiond "$@"
}

# Re-run the calling script inside a private mount namespace, once. Root
# gets one directly; other users get one inside a user namespace where they
# are root. Exits (skipping every test, "no unshare: ...") when neither
# works.
lttng_private_ns() {
	if [ "${CUDATRACE_TEST_NS:-}" = 1 ]; then
		return 0
	fi
	command -v lttng >/dev/null 2>&1 ||
		tap_fail_all "lttng is not installed (Debian: lttng-tools)"
	command -v lttng-sessiond >/dev/null 2>&1 ||
		tap_fail_all "lttng-sessiond is not installed (Debian: lttng-tools)"
	command -v unshare >/dev/null 2>&1 ||
		tap_fail_all "unshare is not installed (Debian: util-linux)"
	command -v mount >/dev/null 2>&1 ||
		tap_fail_all "mount is not installed (Debian: mount)"
	lttng_ns_flags=""
	if unshare -m true 2>/dev/null; then
		lttng_ns_flags="-m"
	elif unshare -r -m true 2>/dev/null; then
		lttng_ns_flags="-r -m"
	else
		tap_skip_all "no unshare: cannot create a mount namespace (unshare -m, unshare -r -m)"
	fi
	CUDATRACE_TEST_NS=1
	export CUDATRACE_TEST_NS
	# shellcheck disable=SC2086
	exec unshare $lttng_ns_flags --propagation private "${LTTNG_TEST_SHELL:-/bin/sh}" "$0" "$@"
}

# Give the namespace empty LTTng directories of its own, and $lttng_tmp
# for the test's files (removed on every exit path): no session daemon is
# reachable from here until lttng_daemon_start.
lttng_private_dirs() {
	lttng_tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-test.XXXXXX") || return 1
	trap lttng_cleanup EXIT
	trap 'lttng_cleanup; exit 130' INT
	trap 'lttng_cleanup; exit 143' TERM HUP
	mkdir -p /var/run/lttng "$lttng_tmp/home" || return 1
	mount -t tmpfs cudatrace-test /var/run/lttng || return 2
	# lttng-ust's wait futexes and the ring buffers live in /dev/shm.
	mount -t tmpfs cudatrace-test /dev/shm || return 2
	LTTNG_HOME="$lttng_tmp/home"
	export LTTNG_HOME
}

# lttng_private_dirs, or the end of the script: skipped ("no unshare: ")
# when the namespace may not mount, failed on any other error.
lttng_private_dirs_or_end() {
	lttng_dirs_status=0
	lttng_private_dirs || lttng_dirs_status=$?
	case $lttng_dirs_status in
	0) ;;
	2) tap_skip_all "no unshare: cannot mount a tmpfs on /var/run/lttng or /dev/shm in the private mount namespace" ;;
	*) tap_fail_all "the test's private directories are made ($lttng_tmp)" ;;
	esac
}

# Start the daemon (in private directories, lttng_private_dirs_or_end).
# Returns non-zero (after a diagnostic) when it does not come up.
lttng_daemon_start() {
	if [ -z "$lttng_tmp" ]; then
		lttng_private_dirs_or_end
	fi
	if ! lttng-sessiond --daemonize --no-kernel >"$lttng_tmp/sessiond.log" 2>&1; then
		diag "lttng-sessiond failed to start:"
		sed 's/^/#   /' "$lttng_tmp/sessiond.log"
		return 1
	fi
	lttng_daemon_pid=$(lttng_read_pidfile)
	if [ -z "$lttng_daemon_pid" ]; then
		diag "lttng-sessiond started but wrote no pid file"
		return 1
	fi
	return 0
}

# The pid file of the daemon of this namespace: root's rundir is
# /var/run/lttng, another user's is $LTTNG_HOME/.lttng.
lttng_read_pidfile() {
	for lttng_pidfile in /var/run/lttng/lttng-sessiond.pid "$LTTNG_HOME/.lttng/lttng-sessiond.pid"; do
		if [ -s "$lttng_pidfile" ]; then
			cat "$lttng_pidfile"
			return 0
		fi
	done
	return 1
}

# lttng_session_begin NAME [SUBBUF_SIZE [NUM_SUBBUF]]
# The GPU group's events, "cudatrace:NAME", comma-separated, from the contract.
lttng_gpu_events() {
	sed -n 's/^CT_EVENT([A-Z0-9_]*, *\([a-z0-9_]*\), *[a-z0-9_]*, *GPU)$/cudatrace:\1/p' \
		"$trace_srcdir/contract/events.def" | paste -s -d, -
}

# lttng_gpu_channel NAME SUBBUF NUM_SUBBUF: NAME's cudatrace-gpu channel
# (LTTNG_TEST_GPU_CONTEXTS) with the GPU events; the host channel's
# exclusions on stdout ("--exclude=LIST", nothing without it).
lttng_gpu_channel() {
	[ -n "${LTTNG_TEST_GPU_CONTEXTS:-}" ] && [ -z "${LTTNG_TEST_EVENTS:-}" ] || return 0
	lttng_gpu=$(lttng_gpu_events)
	[ -n "$lttng_gpu" ] || {
		echo "no GPU events in $trace_srcdir/contract/events.def" >&2
		return 1
	}
	# shellcheck disable=SC2046 # the contexts split into words
	{
		lttng_client enable-channel --userspace --session="$1" \
			--subbuf-size="$2" --num-subbuf="$3" cudatrace-gpu &&
			lttng_client enable-event --userspace --session="$1" \
				--channel=cudatrace-gpu "$lttng_gpu" &&
			lttng_client add-context --userspace --session="$1" \
				--channel=cudatrace-gpu $(printf ' -t %s' $LTTNG_TEST_GPU_CONTEXTS)
	} >&2 || return 1
	echo "--exclude=$lttng_gpu"
}

lttng_session_begin() {
	lttng_name=$1
	lttng_subbuf=${2:-${LTTNG_TEST_SUBBUF_SIZE:-1M}}
	lttng_nsubbuf=${3:-${LTTNG_TEST_NUM_SUBBUF:-8}}
	lttng_trace="$lttng_tmp/$lttng_name"
	lttng_log="$lttng_tmp/lttng-$lttng_name.log"
	# shellcheck disable=SC2046,SC2086 # the contexts split into words
	{
		lttng_client create "$lttng_name" --output="$lttng_trace" &&
			lttng_sessions="$lttng_sessions $lttng_name" &&
			lttng_client enable-channel --userspace --session="$lttng_name" \
				--subbuf-size="$lttng_subbuf" --num-subbuf="$lttng_nsubbuf" cudatrace &&
			lttng_exclude=$(lttng_gpu_channel "$lttng_name" "$lttng_subbuf" "$lttng_nsubbuf") &&
			lttng_client enable-event --userspace --session="$lttng_name" \
				--channel=cudatrace "${LTTNG_TEST_EVENTS:-cudatrace:*}" $lttng_exclude &&
			lttng_client add-context --userspace --session="$lttng_name" \
				--channel=cudatrace $(printf ' -t %s' ${LTTNG_TEST_CONTEXTS:-vpid vtid procname}) &&
			lttng_client start "$lttng_name"
	} >"$lttng_log" 2>&1 && return 0
	diag "cannot set up the LTTng session $lttng_name:"
	sed 's/^/#   /' "$lttng_log"
	return 1
}

lttng_session_end() {
	lttng_name=$1
	lttng_log="$lttng_tmp/lttng-$lttng_name.log"
	lttng_status=0
	lttng_client stop "$lttng_name" >>"$lttng_log" 2>&1 || lttng_status=1
	lttng_client destroy "$lttng_name" >>"$lttng_log" 2>&1 || lttng_status=1
	lttng_sessions=$(echo "$lttng_sessions" | sed "s/ $lttng_name\$//; s/ $lttng_name / /")
	if [ $lttng_status -ne 0 ]; then
		diag "cannot stop the LTTng session $lttng_name:"
		sed 's/^/#   /' "$lttng_log"
	fi
	return $lttng_status
}

# The direct children of $lttng_parent (the daemon's consumer and run-as
# helpers), found by parent pid.
lttng_children() {
	for lttng_stat in /proc/[0-9]*/stat; do
		# "pid (comm) state ppid ...": comm may hold spaces, so cut after
		# the last ')'; what is left starts with state and ppid.
		lttng_fields=$(sed 's/.*) //' "$lttng_stat" 2>/dev/null) || continue
		# shellcheck disable=SC2086
		set -- $lttng_fields
		[ "${2:-}" = "$lttng_parent" ] || continue
		lttng_child=${lttng_stat#/proc/}
		echo "${lttng_child%/stat}"
	done
}

# Wait up to 10 s for each pid to exit, then kill what is left.
lttng_reap() {
	for lttng_pid in "$@"; do
		lttng_wait=0
		while kill -0 "$lttng_pid" 2>/dev/null && [ $lttng_wait -lt 100 ]; do
			sleep 0.1
			lttng_wait=$((lttng_wait + 1))
		done
		kill -KILL "$lttng_pid" 2>/dev/null || :
	done
}

lttng_daemon_stop() {
	[ -n "$lttng_daemon_pid" ] || return 0
	lttng_parent=$lttng_daemon_pid
	lttng_kids=$(lttng_children)
	kill -TERM "$lttng_daemon_pid" 2>/dev/null || :
	# shellcheck disable=SC2086
	lttng_reap "$lttng_daemon_pid" $lttng_kids
	lttng_daemon_pid=""
}

# Every exit path: end the sessions, stop the daemon, remove the files.
lttng_cleanup() {
	trap - EXIT INT TERM HUP
	for lttng_name in $lttng_sessions; do
		lttng_session_end "$lttng_name" >/dev/null 2>&1 || :
	done
	lttng_daemon_stop
	if [ -n "$lttng_tmp" ] && [ "${LTTNG_TEST_KEEP:-0}" != 1 ]; then
		rm -rf "$lttng_tmp"
	elif [ -n "$lttng_tmp" ]; then
		echo "# kept $lttng_tmp" >&2
	fi
}
