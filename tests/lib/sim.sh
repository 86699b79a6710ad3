# SPDX-License-Identifier: MIT
#
# sim.sh - what the shell tests of tests/sim/ share: finding the simulator
# and the test programs, a scratch directory, and running a program on the
# simulated GPU. Source tap.sh first.
#
# tests/Makefile.am sets, through AM_TESTS_ENVIRONMENT:
#   CUDASIM_LIBDIR   the simulator's libraries (tests/cudasim/.libs)
#   TESTS_BUILDDIR   tests/ in the build tree (programs, inject)
#   TESTS_SRCDIR     tests/ in the source tree (lib, sim)
#   PYTHON3          python3, or empty
#   CUDASIM_ENV      the built tests/cudasim/cudasim-env script

: "${TESTS_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TESTS_BUILDDIR:=$(pwd)}"
: "${CUDASIM_LIBDIR:=$TESTS_BUILDDIR/cudasim/.libs}"
: "${PYTHON3:=$(command -v python3 || true)}"

# Fail the whole script unless the simulator is built.
sim_require_libs() {
	for sim_lib in libcuda.so.1 libcudart.so.13 libcupti.so.13; do
		[ -e "$CUDASIM_LIBDIR/$sim_lib" ] ||
			tap_fail_all "the simulator is not built ($CUDASIM_LIBDIR/$sim_lib)"
	done
}

# sim_program NAME: set sim_path to the program, or fail everything.
sim_program() {
	sim_path=$TESTS_BUILDDIR/programs/$1
	[ -x "$sim_path" ] || case $1 in
	rt-*) tap_fail_all "programs/$1 is not built (configure found no nvcc? NVIDIA's cuda-nvcc-13-0)" ;;
	*) tap_fail_all "programs/$1 is not built" ;;
	esac
}

sim_require_python() {
	[ -n "$PYTHON3" ] || tap_fail_all "configure found no python3 (Debian: python3)"
}

# sim_inject_lib NAME: set sim_inject to the libtool module inject/libNAME.so,
# or fail everything.
sim_inject_lib() {
	sim_inject=$TESTS_BUILDDIR/inject/.libs/lib$1.so
	[ -e "$sim_inject" ] || tap_fail_all "inject/lib$1.so is not built"
}

# sim_tmpdir: set sim_tmp to a fresh scratch directory, removed at exit
# unless a test failed (or KEEP_TEST_FILES is set).
sim_tmpdir() {
	sim_tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudasim-test.XXXXXX") || exit 99
	trap 'sim_cleanup' EXIT
}

sim_cleanup() {
	if [ "${tap_failed:-0}" -eq 0 ] && [ -z "${KEEP_TEST_FILES:-}" ]; then
		rm -rf "$sim_tmp"
	else
		echo "# test files kept in $sim_tmp"
	fi
}

# sim_run OUT ERR [VAR=VALUE...] PROGRAM [ARGS...]: run on the simulator with
# stdout in OUT and stderr in ERR; sets sim_status. The variables are set for
# the program only.
sim_run() {
	sim_out=$1
	sim_err=$2
	shift 2
	sim_status=0
	env LD_LIBRARY_PATH="$CUDASIM_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$@" >"$sim_out" 2>"$sim_err" || sim_status=$?
}

# Show a file as TAP comments (a failing program's stderr).
sim_show() {
	[ -s "$1" ] || return 0
	sed -e 's/^/#   /' "$1" | head -n "${2:-40}"
}

# sim_check_ledger LEDGER OUTPUT [OPTIONS]: sim/check-ledger.py on a
# ledger and the output of the program that wrote it, relayed as TAP;
# without python3, one failed test and the end of the script.
sim_check_ledger() {
	sim_require_python
	"$PYTHON3" "$TESTS_SRCDIR/sim/check-ledger.py" "$@" >"$sim_tmp/check" 2>&1
	tap_relay ledger "$sim_tmp/check"
}

# sim_check_status DESC: one test on sim_status: 0 passes, 1 means failed
# TAP lines (already counted), anything else is a crash or a sanitizer.
sim_check_status() {
	case $sim_status in
	0 | 1) tap_result 0 "$1 exited normally (status $sim_status)" ;;
	*)
		tap_result 1 "$1 exited normally (status $sim_status)"
		sim_show "$sim_err"
		;;
	esac
}
