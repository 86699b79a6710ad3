# SPDX-License-Identifier: MIT
#
# cli.sh - what the tests of `cudatrace record`, `list` and `jupyter`
# (tests/cli/) share (POSIX sh). A test sets cli_here to its directory,
# then sources this file, which sources tap.sh, lttng-session.sh and
# trace-run.sh from there.
#
#   cli_require            fail the script unless cudatrace, the tracer, the
#                          simulator and Python's bt2 are built or installed;
#                          sets cli_bin (the cudatrace command) and
#                          cli_workload (tests/cli/workload.py)
#   cli_setup "$@"         the start of a test: lttng_private_ns with the
#                          script's arguments, then cli_require
#   cli_env                export what traced programs need: the simulator
#                          first on LD_LIBRARY_PATH, CUDATRACE_LIB naming the
#                          build tree's libcudatrace.so
#   cli_with_daemon        a private session daemon (trace_daemon_or_fail),
#                          then cli_env
#   cli_jupyter_setup LEDGER "$@"
#                          the start of a Jupyter test: cli_setup, a Python
#                          that imports ipykernel and jupyter_client
#                          (jupyter_python: JUPYTER_PYTHON, else
#                          /usr/bin/python3), cli_with_daemon, Jupyter's and
#                          IPython's directories in $lttng_tmp, the ledger
#                          in $lttng_tmp/LEDGER
#   cli_bare_ns            the private namespace's mounts and LTTNG_HOME, with
#                          no session daemon (for tests where cudatrace
#                          starts one, or must find none)
#   cli_without_daemon     cli_bare_ns, then cli_env
#   cli_adopt_daemon       make the daemon that cudatrace started the test's
#                          own, so that it is stopped on every exit path
#   cli_record TAG ARGS... `cudatrace record ARGS` with the ledger in
#                          TAG.ledger, stdout in TAG.out, stderr in TAG.err,
#                          the exit status in cli_status; bounded by
#                          CLI_TIMEOUT (default 120 s)
#   cli_record_paused TAG ARGS...
#                          as cli_record, in the background, for a program
#                          that prints "paused" and waits: sets rec_pid,
#                          and script_pid once the program has paused
#   cli_record_killed TAG ARGS...
#                          cli_record_paused, then the program killed with
#                          SIGKILL and record waited for (cli_status)
#   cli_status_is DESC EXPECTED
#                          the last cli_record's exit status is EXPECTED; if
#                          not, the end of its stderr is shown, escaped
#   cli_start_paused TAG ARGS...
#                          `cudatrace record ARGS` in the background on
#                          workload.py, paused after 3 steps: sets rec_pid,
#                          and script_pid once it paused (one test)
#   cli_start_gated TAG ARGS...
#                          `cudatrace record ARGS` in the background on
#                          workload.py (CLI_STEPS steps, default 3, with
#                          --leak unless CLI_LEAK is empty), which waits
#                          once CUDA is up (for
#                          $lttng_tmp/TAG.gate, 60 s at most): sets rec_pid
#                          once it waits (one test); cli_open_gate TAG lets
#                          it go on
#   cli_consumer_pids [PID]
#                          the pids of the consumer daemon of the session
#                          daemon PID (default $lttng_daemon_pid), and of its
#                          helper
#   cli_private_rundir     the run directory of cudatrace's own session
#                          daemon (the one record uses when the user's
#                          cannot record); cli_private_daemon_pid its pid
#   cli_stop_private_daemon
#                          stop it, by its pid (done on every exit path of
#                          the tests that use cli_with_daemon, cli_bare_ns or
#                          cli_without_daemon)
#   cli_bt2_discarded DIR  the events babeltrace2 says were discarded in the
#                          trace in DIR (its discarded-events messages)
#   cli_fails VERB TAG PATTERN ARGS...
#                          `cudatrace VERB ARGS` exits with 2 and says
#                          PATTERN (two tests)
#   cli_trace_checked TAG DESC [DIR]
#                          the trace in DIR (default $lttng_tmp/TAG) reads
#                          back (trace_read, then a test DESC) and holds the
#                          ledger's operations (trace_check)
#   cli_sessions           the number of cudatrace sessions in the daemon
#   cli_has TAG PATTERN    TAG.err holds a line matching PATTERN (grep -E)
#   cli_lacks FILE PATTERN FILE holds no line matching PATTERN
#   cli_checks NAME CMD... a checker's lines ("ok WHAT", "not ok WHAT: why",
#                          as tests/cli/stack-sites.py prints them) as test
#                          points; its failure to run is a failed one
#   cli_matches STRING RE  STRING matches the basic regular expression RE
#   cli_wait_for FILE PATTERN [PID]
#                          wait up to 60 s for a line matching PATTERN in
#                          FILE; fails early when PID exits
#   cli_children PID       the pids of PID's children
#   cli_first_finding FILE the first finding of the first page in FILE:
#                          the line "1. ..." and those indented under it
#   cli_same_death TAG FILE
#                          FILE (record's stderr, a post-mortem) leads with
#                          the finding `cudatrace report --brief` leads with
#                          for TAG's trace (how the program ended), word for
#                          word
#   cli_framework_python PYTHON
#                          set python to the framework venv's interpreter
#                          PYTHON, or in a sanitizer build to a wrapper that
#                          runs it with the ASan runtime and libstdc++
#                          preloaded (cli_python_wrapper)
#   cli_cupti12_api        the CUPTI API version of the CUDA 12 headers
#                          (CUDA12_HOME) the CUDA 12 tracer is built with;
#                          empty when there are none
#   cli_tracer_cupti TAG   the CUPTI API version the tracer had, from
#                          tracer_info in TAG's trace (trace_read first)
#
# Every test runs in a private mount namespace (lttng_private_ns): the
# daemons it starts, or that cudatrace starts, are its own.

. "$cli_here/../lib/tap.sh"
. "$cli_here/../lib/lttng-session.sh"
. "$cli_here/../lib/trace-run.sh"

cli_require() {
	trace_require_all
	cli_bin=${CUDATRACE:-$trace_builddir/cli/cudatrace}
	[ -x "$cli_bin" ] || tap_fail_all "the cudatrace command is not built ($cli_bin)"
	cli_workload="$trace_srcdir/tests/cli/workload.py"
}

cli_setup() {
	lttng_private_ns "$@"
	cli_require
}

cli_env() {
	LD_LIBRARY_PATH="$trace_simdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	CUDATRACE_LIB=$trace_lib
	export LD_LIBRARY_PATH CUDATRACE_LIB
	# In a build with --enable-sanitizers the simulator's libraries need
	# the ASan runtime first in the Python interpreters that load them
	# (workloads, Jupyter kernels); what Python leaks is not ours. Only
	# Python gets it: preloaded everywhere, it hangs tools such as ps.
	cli_asan=$(trace_asan_runtime)
	if [ -n "$cli_asan" ]; then
		cli_python_wrapper trace_python "$trace_python"
		cli_python_wrapper jupyter_python "${jupyter_python:-/usr/bin/python3}"
	fi
}

# cli_python_wrapper VAR PYTHON: set VAR to a script in $lttng_tmp, named
# as PYTHON is (record names the program after it), that runs PYTHON with
# the ASan runtime preloaded and leak detection off.
cli_python_wrapper() {
	mkdir -p "$lttng_tmp/asan-$1"
	cli_wrapper="$lttng_tmp/asan-$1/$(basename "$2")"
	{
		echo '#!/bin/sh'
		echo "LD_PRELOAD=\"$cli_asan\${LD_PRELOAD:+:\$LD_PRELOAD}\""
		echo 'ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"'
		echo 'export LD_PRELOAD ASAN_OPTIONS'
		echo "exec \"$2\" \"\$@\""
	} >"$cli_wrapper"
	chmod +x "$cli_wrapper"
	eval "$1=\$cli_wrapper"
}

cli_with_daemon() {
	trace_daemon_or_fail
	cli_traps
	cli_env
}

cli_jupyter_setup() {
	cli_jupyter_ledger=$1
	shift
	jupyter_python=${JUPYTER_PYTHON:-/usr/bin/python3}
	cli_setup "$@"
	"$jupyter_python" -c 'import ipykernel, jupyter_client' 2>/dev/null ||
		tap_fail_all "$jupyter_python cannot import ipykernel and jupyter_client (Debian: python3-ipykernel python3-jupyter-client)"
	cli_with_daemon
	JUPYTER_DATA_DIR="$lttng_tmp/jupyter-data"
	JUPYTER_RUNTIME_DIR="$lttng_tmp/jupyter-runtime"
	JUPYTER_PATH="$JUPYTER_DATA_DIR"
	CUDASIM_LEDGER="$lttng_tmp/$cli_jupyter_ledger"
	# IPython's history and the kernels' files stay in the test's directory.
	IPYTHONDIR="$lttng_tmp/ipython"
	export JUPYTER_DATA_DIR JUPYTER_RUNTIME_DIR JUPYTER_PATH CUDASIM_LEDGER IPYTHONDIR
	unset JUPYTER_CONFIG_DIR
}

# The namespace without a daemon: the mounts and LTTNG_HOME of
# lttng_daemon_start (lttng_private_dirs), and its cleanup on exit.
cli_bare_ns() {
	lttng_private_dirs_or_end
	cli_traps
}

# lttng_cleanup, after cudatrace's own daemon is stopped, on every exit path.
cli_traps() {
	trap cli_cleanup EXIT
	trap 'cli_cleanup; exit 130' INT
	trap 'cli_cleanup; exit 143' TERM HUP
}

cli_cleanup() {
	cli_stop_private_daemon
	lttng_cleanup
}

cli_private_rundir() {
	if [ "$(id -u)" = 0 ]; then
		echo /var/run/lttng/cudatrace/sessiond/.lttng
	else
		echo "$LTTNG_HOME/.lttng/cudatrace/sessiond/.lttng"
	fi
}

cli_private_daemon_pid() {
	cat "$(cli_private_rundir)/lttng-sessiond.pid" 2>/dev/null
}

cli_stop_private_daemon() {
	cli_private_pid=$(cli_private_daemon_pid) || return 0
	[ -n "$cli_private_pid" ] && kill -0 "$cli_private_pid" 2>/dev/null || return 0
	lttng_parent=$cli_private_pid
	cli_private_kids=$(lttng_children)
	kill -TERM "$cli_private_pid" 2>/dev/null || :
	# shellcheck disable=SC2086
	lttng_reap "$cli_private_pid" $cli_private_kids
}

cli_without_daemon() {
	cli_bare_ns
	cli_env
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

cli_record_paused() {
	cli_tag=$1
	shift
	rm -f "$lttng_tmp/$cli_tag.ledger"
	CUDASIM_LEDGER="$lttng_tmp/$cli_tag.ledger" "$cli_bin" record "$@" \
		>"$lttng_tmp/$cli_tag.out" 2>"$lttng_tmp/$cli_tag.err" &
	rec_pid=$!
	script_pid=""
	if cli_wait_for "$lttng_tmp/$cli_tag.out" '^paused' $rec_pid; then
		script_pid=$(cli_children $rec_pid)
	fi
}

cli_record_killed() {
	cli_record_paused "$@"
	[ -n "$script_pid" ] && kill -KILL $script_pid
	cli_status=0
	wait $rec_pid || cli_status=$?
}

cli_status_is() {
	is "$1" "$cli_status" "$2"
	if [ "$cli_status" != "$2" ] && [ -f "$lttng_tmp/$cli_tag.err" ]; then
		diag "$cli_tag: the end of its stderr:"
		tail -n 20 "$lttng_tmp/$cli_tag.err" | cat -v | sed 's/^/#   /'
	fi
}

cli_start_paused() {
	cli_start_tag=$1
	shift
	cli_record_paused "$cli_start_tag" "$@" -- \
		"$trace_python" "$cli_workload" --steps 3 --leak --pause
	ok "$cli_tag: the script paused under record" test -n "$script_pid"
}

cli_start_gated() {
	cli_tag=$1
	shift
	rm -f "$lttng_tmp/$cli_tag.ledger" "$lttng_tmp/$cli_tag.ready" "$lttng_tmp/$cli_tag.gate"
	CUDASIM_LEDGER="$lttng_tmp/$cli_tag.ledger" "$cli_bin" record "$@" -- \
		"$trace_python" "$cli_workload" --steps "${CLI_STEPS:-3}" ${CLI_LEAK---leak} \
		--ready "$lttng_tmp/$cli_tag.ready" --gate "$lttng_tmp/$cli_tag.gate" \
		>"$lttng_tmp/$cli_tag.out" 2>"$lttng_tmp/$cli_tag.err" &
	rec_pid=$!
	cli_tries=0
	while [ ! -e "$lttng_tmp/$cli_tag.ready" ] && [ $cli_tries -lt 600 ] &&
		kill -0 $rec_pid 2>/dev/null; do
		sleep 0.1
		cli_tries=$((cli_tries + 1))
	done
	ok "$cli_tag: the program waits under record" test -e "$lttng_tmp/$cli_tag.ready"
}

cli_open_gate() {
	: >"$lttng_tmp/$1.gate"
}

cli_consumer_pids() {
	cli_sessiond=${1:-$lttng_daemon_pid}
	[ -n "$cli_sessiond" ] || return 0
	lttng_parent=$cli_sessiond
	for cli_kid in $(lttng_children); do
		case $(tr '\0' ' ' <"/proc/$cli_kid/cmdline" 2>/dev/null) in
		*lttng-consumerd*)
			echo "$cli_kid"
			lttng_parent=$cli_kid
			lttng_children
			lttng_parent=$cli_sessiond
			;;
		esac
	done
}

cli_bt2_discarded() {
	"$trace_python_bt2" - "$1" <<'PY'
import sys, bt2
total = 0
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is bt2._DiscardedEventsMessageConst:
        if msg.count is None:
            print("unknown")
            sys.exit(0)
        total += msg.count
print(total)
PY
}

cli_fails() {
	cli_verb=$1
	cli_tag=$2
	cli_pattern=$3
	shift 3
	cli_fails_status=0
	"$cli_bin" "$cli_verb" "$@" >"$lttng_tmp/$cli_tag.out" 2>"$lttng_tmp/$cli_tag.err" ||
		cli_fails_status=$?
	is "$cli_tag: exit status 2" "$cli_fails_status" 2
	ok "$cli_tag: says '$cli_pattern'" cli_has "$cli_tag" "$cli_pattern"
}

cli_trace_checked() {
	if trace_read "$1" "${3:-$lttng_tmp/$1}"; then
		tap_result 0 "$2"
		trace_check "$1" --checks readable,ops,live
	else
		tap_result 1 "$2"
	fi
}

cli_sessions() {
	lttng_client list 2>/dev/null | grep -c '^ *[0-9]*) cudatrace-' || :
}

cli_has() {
	if grep -Eq -- "$2" "$lttng_tmp/$1.err"; then
		return 0
	fi
	diag "$1.err has no line matching '$2'; it holds:"
	tail -n 12 "$lttng_tmp/$1.err" | sed 's/^/#   /'
	return 1
}

cli_checks() {
	cli_checks_name=$1
	shift
	"$@" >"$lttng_tmp/checks.out" 2>&1 ||
		echo "not ok $cli_checks_name ran: $(tail -1 "$lttng_tmp/checks.out")" \
			>>"$lttng_tmp/checks.out"
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok }" true ;;
		*) ok "${line#not ok }" false ;;
		esac
	done <"$lttng_tmp/checks.out"
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

cli_first_finding() {
	awk '/^1\. / { on = 1; print; next } on && !/^   / { exit } on' "$1"
}

cli_same_death() {
	"$cli_bin" report --brief -o "$lttng_tmp/$1.brief" "$lttng_tmp/$1" || return 1
	cli_first_finding "$2" >"$lttng_tmp/$1.said"
	cli_first_finding "$lttng_tmp/$1.brief" >"$lttng_tmp/$1.reported"
	if [ -s "$lttng_tmp/$1.said" ] && cmp -s "$lttng_tmp/$1.said" "$lttng_tmp/$1.reported"; then
		return 0
	fi
	diag "$2 and the report of $1 lead with different findings:"
	diff "$lttng_tmp/$1.said" "$lttng_tmp/$1.reported" | head -n 20 | sed 's/^/#   /'
	return 1
}

cli_cupti12_api() {
	sed -n 's/^#define CUPTI_API_VERSION \([0-9]*\).*/\1/p' \
		"${CUDA12_HOME:-/nonexistent}/include/cupti_version.h" \
		"${CUDA12_HOME:-/nonexistent}/extras/CUPTI/include/cupti_version.h" 2>/dev/null | head -n 1
}

cli_tracer_cupti() {
	sed -n 's/^event=cudatrace:tracer_info .* cupti_version=\([0-9]*\).*/\1/p' \
		"$lttng_tmp/$1.events" | head -n 1
}

# An uninstrumented interpreter loads a sanitizer build's simulator only
# with the ASan runtime first; and with libstdc++ right after it, for ASan
# finds the __cxa_throw it intercepts only in what is loaded when it starts
# (Python links no libstdc++): the frameworks' C++ exceptions abort in the
# interceptor otherwise.
cli_framework_python() {
	python=$1
	cli_fw_asan=$(trace_asan_runtime)
	if [ -n "$cli_fw_asan" ]; then
		cli_fw_stdcxx=$(ldconfig -p |
			sed -n 's/^[[:space:]]*libstdc++\.so\.6 (libc6,x86-64) => //p' | head -n 1)
		cli_asan="$cli_fw_asan${cli_fw_stdcxx:+:$cli_fw_stdcxx}"
		cli_python_wrapper python "$1"
	fi
}
