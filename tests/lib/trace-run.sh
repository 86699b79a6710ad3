# SPDX-License-Identifier: MIT
#
# trace-run.sh - run example workloads on the simulated GPU, traced or not,
# and check their traces against the simulator's ledger (POSIX sh). Source
# tap.sh and lttng-session.sh first, then this file.
#
#   trace_locate                 find the source and build trees, the
#                                simulator, the tracer and the examples
#   trace_require_all            fail (and end) the script when the tracer,
#                                the simulator or Babeltrace's bt2 is
#                                missing
#   trace_setup "$@"             the start of a trace test: lttng_private_ns,
#                                then trace_require_all
#   trace_daemon_or_fail         lttng_daemon_start, or fail and end
#   trace_session TAG [SUBBUF_SIZE [NUM_SUBBUF]]
#                                lttng_session_begin, or one failed test
#                                "TAG: the LTTng session starts" and a
#                                non-zero status
#   trace_workload NAME          the command line of example NAME, in
#                                $trace_cmd (empty when it was not built)
#   trace_workload_or_fail NAME  the same, or one failed test (the example
#                                is not built) and a non-zero status
#   trace_require_workload NAME  the same, or fail and end the script
#   trace_require_program NAME   the test program tests/programs/NAME of
#                                the build in $trace_cmd, or fail and end
#                                the script
#   trace_forks                  $trace_cmd forks children that exit: no
#                                leak check in a sanitizer build
#   trace_run TAG traced|plain CMD...
#                                run CMD on the simulator with the ledger in
#                                $lttng_tmp/TAG.ledger, stdout in TAG.out,
#                                stderr in TAG.err, exit status in
#                                $trace_status; "traced" injects
#                                libcudatrace.so for CUDA and NVTX;
#                                TRACE_TIMEOUT (default 120 s) bounds it
#   trace_read TAG [DIR]         the trace in DIR (default $lttng_trace) as
#                                key=value lines, in $lttng_tmp/TAG.events;
#                                one test point: it reads back
#   trace_check TAG ARGS...      check-trace.py against TAG's ledger and
#                                events, relayed as TAP
#   trace_same_output A B        the outputs of runs A and B agree, with
#                                addresses masked
#   trace_traced TAG [VAR=VALUE...] -- CMD...
#                                CMD, with the variables set, traced in a
#                                session of its own (trace_session,
#                                trace_run, lttng_session_end); one test
#                                point: it exits with 0; non-zero when the
#                                session did not start
#   trace_ledger TAG OP FIELD    FIELD of the first OP line of TAG's ledger
#   trace_python_env             the variables an uninstrumented Python
#                                needs to load a sanitizer build's
#                                simulator (nothing in other builds)
#
# The simulator's variables (CUDASIM_*) pass through the environment of the
# calling script: set them around trace_run.

trace_locate() {
	# A test lies two levels down the source tree (tests/AREA/NAME); a
	# script elsewhere (bench/, tools/) says where the tree is.
	trace_srcdir=${CUDATRACE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
	if [ -n "${CUDATRACE_BUILDDIR:-}" ]; then
		trace_builddir=$CUDATRACE_BUILDDIR
	elif [ -f "$PWD/../config.status" ]; then
		trace_builddir=$(cd .. && pwd)
	elif [ -f "$PWD/config.status" ]; then
		trace_builddir=$PWD
	else
		trace_builddir=$trace_srcdir
	fi
	trace_simdir=${CUDASIM_LIBDIR:-$trace_builddir/tests/cudasim/.libs}
	trace_lib=${CUDATRACE_LIB:-$trace_builddir/libtrace/.libs/libcudatrace.so}
	trace_python_bt2=${PYTHON_BT2:-/usr/bin/python3}
	trace_python=${PYTHON3:-python3}
	trace_reader="$trace_srcdir/tests/trace/read-trace.py"
	trace_checker="$trace_srcdir/tests/trace/check-trace.py"
	trace_examples="$trace_builddir/examples"
}

# The start of a trace test that needs a daemon: a failure to start one is
# a failed test, and the end of the script.
trace_daemon_or_fail() {
	if ! lttng_daemon_start; then
		tap_result 1 "a private lttng-sessiond starts"
		tap_done
	fi
}

# trace_require_lib: libcudatrace.so is built, or the script fails.
trace_require_lib() {
	[ -e "$trace_lib" ] || tap_fail_all "libcudatrace.so is not built ($trace_lib)"
}

# trace_require_bt2: Babeltrace's Python bindings, or the script fails.
trace_require_bt2() {
	"$trace_python_bt2" -c 'import bt2' 2>/dev/null ||
		tap_fail_all "$trace_python_bt2 cannot import bt2 (Debian: python3-bt2, for /usr/bin/python3; or configure PYTHON_BT2=PYTHON)"
}

trace_require_all() {
	trace_locate
	# In a sanitizer build, lttng-ust's own leak of an application
	# context's data at exit (lsan-lttng-ust.supp) is not the program's.
	LSAN_OPTIONS="suppressions=$trace_srcdir/tests/lib/lsan-lttng-ust.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
	export LSAN_OPTIONS
	[ -e "$trace_simdir/libcuda.so.1" ] ||
		tap_fail_all "the simulated GPU is not built ($trace_simdir/libcuda.so.1)"
	trace_require_lib
	trace_require_bt2
}

# trace_setup "$@": called with the script's arguments, for lttng_private_ns.
trace_setup() {
	lttng_private_ns "$@"
	trace_require_all
}

trace_session() {
	lttng_session_begin "$@" && return 0
	tap_result 1 "$1: the LTTng session starts"
	return 1
}

# The AddressSanitizer runtime the simulator was linked with (a build
# configured with --enable-sanitizers), or nothing.
trace_asan_runtime() {
	ldd "$trace_simdir/libcuda.so.1" 2>/dev/null | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p'
}

# An uninstrumented interpreter loads instrumented libraries only with the
# sanitizer's runtime first; CPython's own allocations are not leaks of
# ours.
trace_python_env() {
	trace_asan=$(trace_asan_runtime)
	[ -z "$trace_asan" ] ||
		echo "LD_PRELOAD=$trace_asan ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}

trace_workload() {
	trace_cmd=""
	case $1 in
	python)
		trace_cmd="$trace_python $trace_srcdir/examples/python/cudart_ctypes.py"
		trace_python_vars=$(trace_python_env)
		[ -z "$trace_python_vars" ] || trace_cmd="env $trace_python_vars $trace_cmd"
		return 0
		;;
	driver-api)
		trace_exe="$trace_examples/driver/$1"
		;;
	*)
		trace_exe="$trace_examples/cuda/$1"
		;;
	esac
	[ -x "$trace_exe" ] || return 0
	trace_cmd=$trace_exe
	[ "$1" != fork-exec ] || trace_forks
	return 0
}

# trace_forks: $trace_cmd forks children that exit. GCC 12's LeakSanitizer
# deadlocks now and then at the exit of a child forked while another thread
# (the tracer's, lttng-ust's) held a lock of ASan's allocator, in
# LockAllocator: that runtime does not take those locks around fork (later
# ones do). No leak check in a sanitizer build, then.
trace_forks() {
	[ -z "$(trace_asan_runtime)" ] ||
		trace_cmd="env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 $trace_cmd"
}

# Why an example is missing: examples/cuda needs nvcc, driver-api does not.
trace_workload_missing() {
	case $1 in
	driver-api) echo "example '$1' is not built ($trace_examples/driver/$1)" ;;
	*) echo "example '$1' is not built ($trace_examples/cuda/$1: configure found no nvcc? NVIDIA's cuda-nvcc-13-0)" ;;
	esac
}

trace_workload_or_fail() {
	trace_workload "$1"
	[ -n "$trace_cmd" ] && return 0
	tap_result 1 "$(trace_workload_missing "$1")"
	return 1
}

trace_require_workload() {
	trace_workload "$1"
	[ -n "$trace_cmd" ] || tap_fail_all "$(trace_workload_missing "$1")"
}

trace_require_program() {
	trace_cmd="$trace_builddir/tests/programs/$1"
	[ -x "$trace_cmd" ] || tap_fail_all "the test program $1 is not built ($trace_cmd)"
}

# trace_run TAG traced|plain CMD [ARGS...]
# TRACE_NO_LEDGER=1 runs without the ledger (its writes cost time).
trace_run() {
	trace_tag=$1
	trace_mode=$2
	shift 2
	rm -f "$lttng_tmp/$trace_tag.ledger"
	trace_ledger="$lttng_tmp/$trace_tag.ledger"
	[ "${TRACE_NO_LEDGER:-0}" = 1 ] && trace_ledger=""
	if [ "$trace_mode" = traced ]; then
		# lttng-ust waits 3 s at most for the session daemon before the
		# program goes on (untraced until registered); a loaded test
		# machine gets longer, so that no early event is lost.
		set -- env CUDA_INJECTION64_PATH="$trace_lib" NVTX_INJECTION64_PATH="$trace_lib" \
			LTTNG_UST_REGISTER_TIMEOUT="${LTTNG_UST_REGISTER_TIMEOUT:-20000}" "$@"
	fi
	trace_status=0
	# SIGKILL 10 s after SIGTERM: a program wedged with every signal
	# blocked (as lttng-ust blocks them across a fork) ends too.
	LD_LIBRARY_PATH="$trace_simdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		CUDASIM_LEDGER="$trace_ledger" timeout -k 10 "${TRACE_TIMEOUT:-120}" "$@" \
		>"$lttng_tmp/$trace_tag.out" 2>"$lttng_tmp/$trace_tag.err" || trace_status=$?
	case $trace_status in
	124) diag "$trace_tag: timed out after ${TRACE_TIMEOUT:-120} s" ;;
	137) diag "$trace_tag: killed (timed out after ${TRACE_TIMEOUT:-120} s, or SIGKILL)" ;;
	esac
	return 0
}

# Show the end of a run's stderr, for a failed test.
trace_show_err() {
	[ -s "$lttng_tmp/$1.err" ] || return 0
	diag "stderr of $1:"
	tail -n 15 "$lttng_tmp/$1.err" | sed 's/^/#   /'
}

# trace_read TAG [DIR]: read the trace in DIR (default $lttng_trace) into
# TAG.events; one test point, and the reader's status.
trace_read() {
	"$trace_python_bt2" "$trace_reader" "${2:-$lttng_trace}" >"$lttng_tmp/$1.events" \
		2>"$lttng_tmp/$1.read-err"
	trace_read_status=$?
	if [ $trace_read_status -eq 0 ]; then
		tap_result 0 "$1: the trace reads back with babeltrace2"
	else
		tap_result 1 "$1: the trace reads back with babeltrace2"
		sed 's/^/#   /' "$lttng_tmp/$1.read-err"
	fi
	return $trace_read_status
}

# trace_check TAG [check-trace.py options]
trace_check() {
	trace_tag=$1
	shift
	"$trace_python" "$trace_checker" --ledger "$lttng_tmp/$trace_tag.ledger" \
		--trace "$lttng_tmp/$trace_tag.events" "$@" >"$lttng_tmp/$trace_tag.tap" 2>&1
	tap_relay "$trace_tag" "$lttng_tmp/$trace_tag.tap"
}

# Addresses differ from run to run (ASLR, the simulator's mapping).
trace_mask() {
	sed -e 's/0x[0-9a-fA-F]\{1,\}/0xADDR/g' "$1"
}

trace_same_output() {
	trace_mask "$lttng_tmp/$1.out" >"$lttng_tmp/$1.masked"
	trace_mask "$lttng_tmp/$2.out" >"$lttng_tmp/$2.masked"
	if cmp -s "$lttng_tmp/$1.masked" "$lttng_tmp/$2.masked"; then
		return 0
	fi
	diff -u "$lttng_tmp/$1.masked" "$lttng_tmp/$2.masked" | head -n 20 | sed 's/^/#   /'
	return 1
}

trace_traced() {
	trace_traced_tag=$1
	shift
	trace_traced_vars=""
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		trace_traced_vars="$trace_traced_vars $1"
		shift
	done
	[ $# -gt 0 ] && shift
	trace_session "$trace_traced_tag" || return 1
	# shellcheck disable=SC2086
	trace_run "$trace_traced_tag" traced env $trace_traced_vars "$@"
	lttng_session_end "$trace_traced_tag"
	is "$trace_traced_tag: the program exits with 0" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$trace_traced_tag"
	return 0
}

trace_ledger() {
	sed -n "s/^.*op=$2 .*\\b$3=\\([^ ]*\\).*$/\\1/p" "$lttng_tmp/$1.ledger" | head -n 1
}

# Number of events named NAME (without provider) in TAG's events.
trace_count() {
	grep -c "^event=cudatrace:$2 " "$lttng_tmp/$1.events" || :
}

# trace_batched TAG COLUMN: the elements of COLUMN in the gpu_batch events
# of TAG's trace (doc/events.md): direction for the copies they hold,
# registers for the kernels, shape_id for the shaped kernels, record for
# all.
trace_batched() {
	sed -n "s/^event=cudatrace:gpu_batch .* $2=\\([^ ]*\\).*/\\1/p" \
		"$lttng_tmp/$1.events" | awk -F, '{ n += NF } END { print n + 0 }'
}

# trace_batched_memsets TAG: the memsets the gpu_batch events of TAG's
# trace hold (records of kind memset, which have no column of their own).
trace_batched_memsets() {
	sed -n "s/^event=cudatrace:gpu_batch .* record=\\([^ ]*\\).*/\\1/p" \
		"$lttng_tmp/$1.events" | tr ',' '\n' | grep -c -x '3\|memset' || :
}

# trace_repeats TAG: the repeats of TAG's trace, alone or in the
# repeat_run events that hold them (doc/events.md).
trace_repeats() {
	echo $(($(trace_count "$1" repeat) + $(sed -n \
		"s/^event=cudatrace:repeat_run .* correlation_id=\\([^ ]*\\).*/\\1/p" \
		"$lttng_tmp/$1.events" | awk -F, '{ n += NF } END { print n + 0 }')))
}
