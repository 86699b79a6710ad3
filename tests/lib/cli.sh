# SPDX-License-Identifier: MIT
#
# cli.sh - what the tests of `cudatrace record`, `list` and `jupyter`
# (tests/cli/) share (POSIX sh). Source tap.sh, lttng-session.sh and
# trace-run.sh first, then this file.
#
#   cli_require            skip the script unless cudatrace, the tracer, the
#                          simulator and Python's bt2 are built or installed;
#                          sets cli_bin (the cudatrace command) and
#                          cli_workload (tests/cli/workload.py)
#   cli_env                export what traced programs need: the simulator
#                          first on LD_LIBRARY_PATH, CUDATRACE_LIB naming the
#                          build tree's libcudatrace.so
#   cli_bare_ns            the private namespace's mounts and LTTNG_HOME, with
#                          no session daemon (for tests where cudatrace
#                          starts one, or must find none)
#   cli_adopt_daemon       make the daemon that cudatrace started the test's
#                          own, so that it is stopped on every exit path
#   cli_record TAG ARGS... `cudatrace record ARGS` with the ledger in
#                          TAG.ledger, stdout in TAG.out, stderr in TAG.err,
#                          the exit status in cli_status; bounded by
#                          CLI_TIMEOUT (default 120 s)
#   cli_has TAG PATTERN    TAG.err holds a line matching PATTERN (grep -E)
#   cli_lacks FILE PATTERN FILE holds no line matching PATTERN
#   cli_matches STRING RE  STRING matches the basic regular expression RE
#   cli_wait_for FILE PATTERN [PID]
#                          wait up to 60 s for a line matching PATTERN in
#                          FILE; fails early when PID exits
#   cli_children PID       the pids of PID's children
#
# Every test runs in a private mount namespace (lttng_private_ns): the
# daemons it starts, or that cudatrace starts, are its own.

cli_require() {
	trace_require_all
	cli_bin=${CUDATRACE:-$trace_builddir/cli/cudatrace}
	[ -x "$cli_bin" ] || tap_skip_all "the cudatrace command is not built ($cli_bin)"
	cli_workload="$trace_srcdir/tests/cli/workload.py"
}

cli_env() {
	LD_LIBRARY_PATH="$trace_simdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	CUDATRACE_LIB=$trace_lib
	export LD_LIBRARY_PATH CUDATRACE_LIB
}

# The namespace without a daemon: the mounts and LTTNG_HOME of
# lttng_daemon_start, and its cleanup on exit.
cli_bare_ns() {
	lttng_tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-test.XXXXXX") || exit 1
	trap lttng_cleanup EXIT
	trap 'lttng_cleanup; exit 130' INT
	trap 'lttng_cleanup; exit 143' TERM HUP
	mkdir -p /var/run/lttng "$lttng_tmp/home" || exit 1
	mount -t tmpfs cudatrace-test /var/run/lttng && mount -t tmpfs cudatrace-test /dev/shm ||
		tap_skip_all "cannot mount a private /var/run/lttng"
	LTTNG_HOME="$lttng_tmp/home"
	export LTTNG_HOME
}

cli_adopt_daemon() {
	lttng_daemon_pid=$(lttng_read_pidfile) || lttng_daemon_pid=""
	[ -n "$lttng_daemon_pid" ]
}

cli_record() {
	cli_tag=$1
	shift
	rm -f "$lttng_tmp/$cli_tag.ledger"
	cli_status=0
	CUDASIM_LEDGER="$lttng_tmp/$cli_tag.ledger" timeout "${CLI_TIMEOUT:-120}" \
		"$cli_bin" record "$@" >"$lttng_tmp/$cli_tag.out" 2>"$lttng_tmp/$cli_tag.err" ||
		cli_status=$?
	if [ $cli_status -eq 124 ]; then
		diag "$cli_tag: timed out after ${CLI_TIMEOUT:-120} s"
	fi
	return 0
}

cli_has() {
	if grep -Eq -- "$2" "$lttng_tmp/$1.err"; then
		return 0
	fi
	diag "$1.err has no line matching '$2'; it holds:"
	tail -n 12 "$lttng_tmp/$1.err" | sed 's/^/#   /'
	return 1
}

cli_lacks() {
	if ! grep -Eq -- "$2" "$1"; then
		return 0
	fi
	diag "$1 has a line matching '$2':"
	grep -E -- "$2" "$1" | head -n 3 | sed 's/^/#   /'
	return 1
}

cli_matches() {
	expr "$1" : "$2" >/dev/null
}

cli_wait_for() {
	cli_tries=0
	while [ $cli_tries -lt 600 ]; do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then
			grep -Eq -- "$2" "$1" 2>/dev/null
			return $?
		fi
		sleep 0.1
		cli_tries=$((cli_tries + 1))
	done
	return 1
}

cli_children() {
	# shellcheck disable=SC2046
	echo $(cat /proc/"$1"/task/*/children 2>/dev/null)
}
