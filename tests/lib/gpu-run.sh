# SPDX-License-Identifier: MIT
#
# gpu-run.sh - run the example workloads on a real NVIDIA GPU, traced or
# not, for the tests of tests/gpu/ (POSIX sh). A test sets gpu_here to its
# directory, then sources this file, which sources tap.sh,
# lttng-session.sh and trace-run.sh from there.
#
#   gpu_require_all              trace_locate, then skip the whole script
#                                (TAP `1..0 # SKIP no GPU: <why>`) unless a
#                                real driver and GPU are there; fail it
#                                when the tracer or Babeltrace's bt2 is
#                                missing. Sets gpu_count, gpu_names,
#                                gpu_ld_path and gpu_checker
#   gpu_setup "$@"               the start of a test: gpu_require_all, then
#                                lttng_private_ns with the script's
#                                arguments, then trace_daemon_or_fail
#   gpu_detect                   the GPU test alone: 0 with gpu_count and
#                                gpu_names set, or 1 with gpu_why set
#   gpu_run TAG traced|plain CMD...
#                                run CMD on the real driver with stdout in
#                                $lttng_tmp/TAG.out, stderr in TAG.err and
#                                the exit status in $trace_status (as
#                                trace_run does, so that trace_show_err and
#                                trace_same_output apply); "traced" injects
#                                libcudatrace.so for CUDA and NVTX;
#                                TRACE_TIMEOUT (default 120 s) bounds it
#   gpu_check_printout TAG EXAMPLE [OPTIONS]
#                                tests/gpu/check-printout.py on TAG's
#                                printout and events (trace_read TAG
#                                first), relayed as TAP
#
# A real driver is there when /dev/nvidiactl exists and `nvidia-smi -L`
# lists a GPU. The simulator (tests/cudasim) must not stand in for it:
# the tests' environment puts it first on LD_LIBRARY_PATH, so every
# program run here (nvidia-smi included, whose NVML it would replace) gets
# LD_LIBRARY_PATH without the simulator's directories and without the
# CUDASIM_* settings. The toolkit's library directories
# (CUDATRACE_CUDA_LIBDIRS, set by tests/Makefile.am; default
# /usr/local/cuda/lib64) come last, for a libcudart the system's loader
# does not know.

# trace_* and lttng_tmp come from trace-run.sh and lttng-session.sh.
# shellcheck disable=SC2154

. "$gpu_here/../lib/tap.sh"
. "$gpu_here/../lib/lttng-session.sh"
. "$gpu_here/../lib/trace-run.sh"

gpu_count=0
gpu_names=""
gpu_why=""
gpu_ld_path=""

# gpu_is_simulator DIR: DIR holds the simulated GPU's libraries.
gpu_is_simulator() {
	[ -n "$1" ] || return 1
	if [ -n "${CUDASIM_LIBDIR:-}" ] && [ "$1" = "$CUDASIM_LIBDIR" ]; then
		return 0
	fi
	if [ -n "${trace_simdir:-}" ] && [ "$1" = "$trace_simdir" ]; then
		return 0
	fi
	# An installed or copied simulator: its libcuda reads CUDASIM_*.
	[ -f "$1/libcuda.so.1" ] && grep -q CUDASIM_ "$1/libcuda.so.1" 2>/dev/null
}

# The library path of programs run on the real driver: the caller's, less
# the simulator, then the toolkit's directories.
gpu_library_path() {
	gpu_path=""
	gpu_ifs=$IFS
	IFS=:
	# shellcheck disable=SC2086
	set -- ${LD_LIBRARY_PATH:-} ${CUDATRACE_CUDA_LIBDIRS:-/usr/local/cuda/lib64}
	IFS=$gpu_ifs
	for gpu_dir in "$@"; do
		[ -n "$gpu_dir" ] || continue
		gpu_is_simulator "$gpu_dir" && continue
		case ":$gpu_path:" in
		*":$gpu_dir:"*) continue ;;
		esac
		gpu_path=${gpu_path:+$gpu_path:}$gpu_dir
	done
	echo "$gpu_path"
}

# The environment of a program run on the real driver (in a subshell).
gpu_program_env() {
	for gpu_var in $(env | sed -n 's/^\(CUDASIM_[A-Za-z0-9_]*\)=.*/\1/p'); do
		unset "$gpu_var"
	done
	unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
	# cudatrace's own settings (cudatrace-env(7)): its defaults here.
	unset CUDATRACE_ACTIVITY CUDATRACE_API CUDATRACE_BUFFER_SIZE CUDATRACE_DEBUG \
		CUDATRACE_FLUSH_PERIOD_MS CUDATRACE_MAX_STRING CUDATRACE_NVML_PERIOD_MS \
		CUDATRACE_SESSION_POLL_MS CUDATRACE_COMPACT
	if [ -n "$gpu_ld_path" ]; then
		LD_LIBRARY_PATH=$gpu_ld_path
		export LD_LIBRARY_PATH
	else
		unset LD_LIBRARY_PATH
	fi
	# A sanitizer build: the driver maps memory where AddressSanitizer
	# keeps its shadow gap, and its own allocations are not leaks of ours.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}protect_shadow_gap=0:detect_leaks=0"
	export ASAN_OPTIONS
}

gpu_detect() {
	gpu_count=0
	gpu_names=""
	gpu_ld_path=$(gpu_library_path)
	# Decided once, before lttng_private_ns re-runs the script.
	if [ "${CUDATRACE_TEST_NS:-}" = 1 ] && [ -n "${CUDATRACE_GPU_COUNT:-}" ]; then
		gpu_count=$CUDATRACE_GPU_COUNT
		gpu_names=${CUDATRACE_GPU_NAMES:-}
		return 0
	fi
	if [ ! -e /dev/nvidiactl ]; then
		gpu_why="/dev/nvidiactl does not exist (no NVIDIA driver loaded)"
		return 1
	fi
	if ! command -v nvidia-smi >/dev/null 2>&1; then
		gpu_why="nvidia-smi is not installed"
		return 1
	fi
	gpu_list=$( (gpu_program_env && exec nvidia-smi -L) 2>&1) || {
		gpu_why="nvidia-smi -L failed: $(echo "$gpu_list" | head -n 1)"
		return 1
	}
	case $gpu_list in
	*"(simulated)"*)
		gpu_why="nvidia-smi -L lists the simulated GPU"
		return 1
		;;
	esac
	gpu_count=$(echo "$gpu_list" | grep -c '^GPU [0-9]') || :
	if [ "$gpu_count" -eq 0 ]; then
		gpu_why="nvidia-smi -L lists no GPU"
		return 1
	fi
	gpu_names=$(echo "$gpu_list" | sed -n 's/^GPU \([0-9]*\): \([^(]*[^ (]\).*/\1: \2/p' |
		tr '\n' ';' | sed 's/;$//; s/;/; /g')
	CUDATRACE_GPU_COUNT=$gpu_count
	CUDATRACE_GPU_NAMES=$gpu_names
	export CUDATRACE_GPU_COUNT CUDATRACE_GPU_NAMES
	return 0
}

gpu_require_all() {
	trace_locate
	gpu_detect || tap_skip_all "no GPU: $gpu_why"
	trace_require_lib
	trace_require_bt2
	gpu_checker="$trace_srcdir/tests/gpu/check-printout.py"
}

gpu_setup() {
	gpu_require_all
	lttng_private_ns "$@"
	trace_daemon_or_fail
}

# gpu_run TAG traced|plain CMD [ARGS...]
gpu_run() {
	gpu_tag=$1
	gpu_mode=$2
	shift 2
	if [ "$gpu_mode" = traced ]; then
		# As trace_run: lttng-ust waits for the session daemon longer than
		# its default 3 s, so that no early event is lost.
		set -- env CUDA_INJECTION64_PATH="$trace_lib" NVTX_INJECTION64_PATH="$trace_lib" \
			LTTNG_UST_REGISTER_TIMEOUT="${LTTNG_UST_REGISTER_TIMEOUT:-20000}" "$@"
	fi
	trace_status=0
	(
		gpu_program_env
		exec timeout "${TRACE_TIMEOUT:-120}" "$@"
	) >"$lttng_tmp/$gpu_tag.out" 2>"$lttng_tmp/$gpu_tag.err" || trace_status=$?
	if [ $trace_status -eq 124 ]; then
		diag "$gpu_tag: timed out after ${TRACE_TIMEOUT:-120} s"
	fi
	return 0
}

# gpu_check_printout TAG EXAMPLE [check-printout.py options]
gpu_check_printout() {
	gpu_tag=$1
	gpu_example=$2
	shift 2
	"$trace_python" "$gpu_checker" --example "$gpu_example" --device real \
		--printout "$lttng_tmp/$gpu_tag.out" --trace "$lttng_tmp/$gpu_tag.events" "$@" \
		>"$lttng_tmp/$gpu_tag.check" 2>&1
	tap_relay "$gpu_tag" "$lttng_tmp/$gpu_tag.check"
}
