#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-all.sh - run the tests of tests/gpu/ outside make, with the
# environment tests/Makefile.am gives them:
#
#   tests/gpu/run-all.sh BUILDDIR [TEST...]
#
# BUILDDIR is a configured and built tree (`make` and `make check`'s
# programs done there; the examples need nvcc). TESTS are names such as
# trace-examples (default: every test of this directory). Each test's TAP
# is printed as it runs, then one summary line per test; the exit status is
# 1 when a test failed or died before its plan, else 0 (skips included).

if [ $# -lt 1 ] || [ ! -f "$1/config.status" ]; then
	echo "usage: $0 BUILDDIR [TEST...]   (BUILDDIR: a configured build tree)" >&2
	exit 2
fi
builddir=$(cd "$1" && pwd)
shift
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -gt 0 ] || set -- trace-examples nested-driver-callbacks nsys-holds-cupti \
	checker-on-simulator

# The values configure gave tests/Makefile.
make_var() {
	sed -n "s/^$1 = //p" "$builddir/tests/Makefile" 2>/dev/null | head -n 1
}
cuda_home=$(make_var CUDA_HOME)
cupti_libdir=$(make_var CUPTI_LIBDIR)
python3=$(make_var PYTHON3)
python_bt2=$(make_var PYTHON_BT2)

unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
CUDASIM_LIBDIR="$builddir/tests/cudasim/.libs"
CUDATRACE_BUILDDIR=$builddir
TESTS_BUILDDIR="$builddir/tests"
TESTS_SRCDIR="$srcdir/tests"
PYTHON3=${python3:-python3}
PYTHON_BT2=${python_bt2:-/usr/bin/python3}
PYTHONDONTWRITEBYTECODE=1
# the event contract's tables (ct_contract.py)
PYTHONPATH="$builddir/tools${PYTHONPATH:+:$PYTHONPATH}"
CUDATRACE_CUDA_LIBDIRS="${cuda_home:-/usr/local/cuda}/lib64${cupti_libdir:+:$cupti_libdir}"
# As under make: the simulator first (the GPU tests take it away again).
LD_LIBRARY_PATH="$CUDASIM_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDASIM_LIBDIR CUDATRACE_BUILDDIR TESTS_BUILDDIR TESTS_SRCDIR PYTHON3 PYTHON_BT2 \
	PYTHONDONTWRITEBYTECODE PYTHONPATH CUDATRACE_CUDA_LIBDIRS LD_LIBRARY_PATH

logdir=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-gpu.XXXXXX") || exit 1
trap 'rm -rf "$logdir"' EXIT
trap 'rm -rf "$logdir"; exit 130' INT
trap 'rm -rf "$logdir"; exit 143' TERM HUP

failed=0
summary=""
for test in "$@"; do
	test=${test#gpu/}
	test=${test%.sh}
	script="$srcdir/tests/gpu/$test.sh"
	if [ ! -f "$script" ]; then
		echo "run-all.sh: no test $script" >&2
		failed=1
		continue
	fi
	echo "# ---- gpu/$test.sh"
	/bin/sh "$script" | tee "$logdir/$test.log"
	plan=$(grep -E '^1\.\.[0-9]+' "$logdir/$test.log" | tail -n 1)
	bad=$(grep -c '^not ok' "$logdir/$test.log")
	passed=$(grep -c '^ok [0-9]* - ' "$logdir/$test.log")
	skipped=$(grep -c '^ok [0-9]* # SKIP' "$logdir/$test.log")
	if [ -z "$plan" ]; then
		result="ERROR (no plan: died early)"
		failed=1
	elif [ "$bad" -gt 0 ]; then
		result="FAIL ($bad failed, $passed passed, $skipped skipped)"
		failed=1
	else
		case $plan in
		"1..0 # SKIP"*) result="SKIP (${plan#1..0 # SKIP })" ;;
		*) result="PASS ($passed passed, $skipped skipped)" ;;
		esac
	fi
	summary="$summary
gpu/$test.sh: $result"
done
echo "# ---- summary$summary" | sed '2,$s/^/# /'
exit $failed
