#!/bin/sh
# SPDX-License-Identifier: MIT
#
# python-jit.sh - Python programs that JIT-compile their kernels, traced on
# the simulator: programs/numba-add.py (numba-cuda: NVVM, cuda.core's
# library loading) and programs/core-kernel.py (cuda.core: a stream, a
# memory-pool buffer, NVRTC, a launch, a copy). Each runs to completion,
# its trace reads back and agrees with the ledger (check-trace.py), and its
# launch is in the trace with the kernel's name.
#
# The packages come from PyPI into a virtual environment kept outside the
# build trees, in CUDATRACE_TEST_CACHE (tools/check points it at _build/cache
# for all its builds; by default ~/.cache/cudatrace-tests), one per set of
# pinned versions below: the first run downloads them (about 800 MB), the
# next runs and the other builds reuse them. Statically linked parts of
# cuda-bindings that use NVIDIA's private export tables are not used here.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

JIT_PACKAGES="numba-cuda[cu13]==0.30.4 cuda-core==1.2.2 cuda-bindings==13.5.0 nvidia-nvvm==13.5.37 nvidia-cuda-nvrtc==13.5.37"

trace_setup "$@"
trace_daemon_or_fail

cache=${CUDATRACE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cudatrace-tests}
venv=$cache/venv-jit-$(echo "$JIT_PACKAGES" | sha256sum | cut -c1-12)
mkdir -p "$cache" || tap_fail_all "the test cache $cache can be created"
# One installer at a time per cache (builds and trees may share it); a
# half-made environment has no .packages and is made again.
if ! (
	flock 9 || exit 1
	[ -f "$venv/.packages" ] && exit 0
	rm -rf "$venv"
	# shellcheck disable=SC2086
	/usr/bin/python3 -m venv "$venv" >"$lttng_tmp/venv.log" 2>&1 &&
		"$venv/bin/pip" install --quiet --disable-pip-version-check $JIT_PACKAGES \
			>>"$lttng_tmp/venv.log" 2>&1 &&
		echo "$JIT_PACKAGES" >"$venv/.packages"
) 9>"$cache/venv-jit.lock"; then
	tap_result 1 "the virtual environment with numba-cuda and cuda.core installs"
	tail -n 20 "$lttng_tmp/venv.log" | sed 's/^/#   /'
	tap_done
fi
tap_result 0 "the virtual environment has numba-cuda and cuda.core"

python=$venv/bin/python
# An uninstrumented interpreter loads instrumented libraries only with the
# sanitizer's runtime first; CPython's own allocations are not our leaks.
# ASan's dlopen interceptor hides the caller's RUNPATH, by which NVRTC
# finds its builtins library next to it: the wheels' library folder goes on
# LD_LIBRARY_PATH (after the simulator) for those runs.
asan=$(trace_asan_runtime)
if [ -n "$asan" ]; then
	wheel_libs=$(echo "$venv"/lib/python3*/site-packages/nvidia/cu13/lib)
	python="env LD_PRELOAD=$asan ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 $python"
	LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$wheel_libs"
	export LD_LIBRARY_PATH
fi

jit_case() { # TAG SCRIPT KERNEL [check-trace.py options]
	if ! lttng_session_begin "$1"; then
		tap_result 1 "$1: the LTTng session starts"
		return
	fi
	# shellcheck disable=SC2086
	TRACE_TIMEOUT=300 trace_run "$1" traced $python "$TESTS_SRCDIR/programs/$2"
	lttng_session_end "$1"
	is "$1: $2 traced exits 0" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$1"
	tap_relay "$1" "$lttng_tmp/$1.out"
	trace_read "$1" || return
	jit_kernel=$3
	jit_tag=$1
	shift 3
	trace_check "$jit_tag" "$@"
	set -- "$jit_tag" "" "$jit_kernel"
	launches=$(grep -c "^event=cudatrace:launch " "$lttng_tmp/$1.events" || :)
	is "$1: the trace has one launch" "$launches" 1
	named=$(grep "^event=cudatrace:kernel_name " "$lttng_tmp/$1.events" | grep -c "$3" || :)
	is "$1: the launched kernel is named $3 in the trace" "$named" 1
	in_ledger=$(grep " op=launch " "$lttng_tmp/$1.ledger" | grep -c "name=[^ ]*$3" || :)
	is "$1: the ledger has its launch" "$in_ledger" 1
}

: "${TESTS_SRCDIR:=$trace_here/..}"
# numba keeps its arrays until the primary context is released at exit,
# which frees them with no free call: libcudatrace has no mem_free event
# for that memory, so the ops and live checks do not apply to numba.
jit_case numba numba-add.py numba_add --checks readable,corr,gputime,window
jit_case core core-kernel.py core_scale
tap_done
