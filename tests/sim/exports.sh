#!/bin/sh
# SPDX-License-Identifier: MIT
#
# exports.sh - each simulated library exports exactly the functions of the
# real one, with the same symbol versions: a program linked against the
# toolkit finds every symbol it imports ("symbol lookup error" otherwise).
# Compared: the dynamic symbols that nm -D --defined-only lists, with their
# @version (and the version definitions themselves), of
#   libcuda.so.1     against the toolkit's driver stub lib64/stubs/libcuda.so
#   libcudart.so.13  against lib64/libcudart.so.13
#   libcupti.so.13   against CUPTI's libcupti.so.13
#   libnvidia-ml.so.1 against the toolkit's NVML stub lib64/stubs/libnvidia-ml.so
#                    where it has one, else the functions its nvml.h declares
#                    (unversioned names included): the real library comes
#                    with the driver, and NVIDIA's cuda-nvml-dev ships both
#   libcudnn.so.9    against cudasim/libcudnn.exports, the symbols of the
#                    real one in PyPI's nvidia-cudnn-cu13 (the toolkit has no
#                    cuDNN)
#   libcublas.so.13  against cudasim/libcublas.exports, and
#   libcublasLt.so.13 against cudasim/libcublasLt.exports, the symbols of
#                    the real ones in PyPI's nvidia-cublas
# and, where the build has the CUDA 12 flavour (CUDA12_HOME), its
#   cuda12/libcudart.so.12 against CUDA 12's libcudart.so.12
#   cuda12/libcupti.so.12  against CUPTI 12's libcupti.so.12
#   cuda12/libcudnn.so.9   against cudasim/libcudnn.exports
# The only symbols allowed in addition are the simulator's private sim_*
# hooks of libcuda.so.1 (sim-hooks.h), which libcudart, libcupti and
# libnvidia-ml use.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
[ -n "${CUDA_HOME:-}" ] || { echo "Bail out! CUDA_HOME is not set (run through make check)"; exit 1; }
: "${CUPTI_LIBDIR:=$CUDA_HOME/lib64}"
command -v nm >/dev/null || { echo "Bail out! nm not found"; exit 1; }
sim_tmpdir

# exported LIB: "name@version" or "name" of each defined dynamic symbol.
exported() {
	nm -D --defined-only "$1" | awk 'NF == 3 && $2 ~ /^[TtWwViAB]$/ {print $3}' |
		sed 's/@@/@/' | grep -v '^sim_' | sort -u
}

# declared HEADER: the functions nvml.h declares, "nvmlReturn_t DECLDIR
# nvmlInit_v2(void);" and "const DECLDIR char* nvmlErrorString(...".
declared() {
	grep -oE 'DECLDIR[ A-Za-z_*]*[ *]nvml[A-Za-z0-9_]+ *\(' "$1" |
		sed -E 's/.*[ *](nvml[A-Za-z0-9_]+) *\($/\1/' | sort -u
}

compare() { # NAME REAL SIMULATED
	if [ ! -e "$2" ]; then
		tap_result 1 "$1: the real library (or header) $2 exists"
		return
	fi
	case $2 in
	*.h) declared "$2" >"$sim_tmp/$1.real" ;;
	*.exports) grep -v '^#' "$2" | sort -u >"$sim_tmp/$1.real" ;;
	*) exported "$2" >"$sim_tmp/$1.real" ;;
	esac
	exported "$3" >"$sim_tmp/$1.sim"
	missing=$(comm -23 "$sim_tmp/$1.real" "$sim_tmp/$1.sim")
	extra=$(comm -13 "$sim_tmp/$1.real" "$sim_tmp/$1.sim")
	is "$1: nothing the real one exports is missing" "$(echo "$missing" | tr '\n' ' ' | sed 's/ *$//')" ""
	is "$1: nothing exported that the real one lacks" "$(echo "$extra" | tr '\n' ' ' | sed 's/ *$//')" ""
	diag "$1: $(wc -l <"$sim_tmp/$1.real" | tr -d ' ') symbols"
}

compare libcuda.so.1 "$CUDA_HOME/lib64/stubs/libcuda.so" "$CUDASIM_LIBDIR/libcuda.so.1"
compare libcudart.so.13 "$CUDA_HOME/lib64/libcudart.so.13" "$CUDASIM_LIBDIR/libcudart.so.13"
compare libcupti.so.13 "$CUPTI_LIBDIR/libcupti.so.13" "$CUDASIM_LIBDIR/libcupti.so.13"
nvml_real="$CUDA_HOME/lib64/stubs/libnvidia-ml.so"
[ -e "$nvml_real" ] || nvml_real="$CUDA_HOME/include/nvml.h"
compare libnvidia-ml.so.1 "$nvml_real" "$CUDASIM_LIBDIR/libnvidia-ml.so.1"
compare libcudnn.so.9 "$TESTS_SRCDIR/cudasim/libcudnn.exports" "$CUDASIM_LIBDIR/libcudnn.so.9"
compare libcublas.so.13 "$TESTS_SRCDIR/cudasim/libcublas.exports" "$CUDASIM_LIBDIR/libcublas.so.13"
compare libcublasLt.so.13 "$TESTS_SRCDIR/cudasim/libcublasLt.exports" \
	"$CUDASIM_LIBDIR/libcublasLt.so.13"
if [ -n "${CUDA12_HOME:-}" ]; then
	compare libcudart.so.12 "${CUDART12_LIBDIR:-$CUDA12_HOME/lib64}/libcudart.so.12" \
		"$CUDASIM_LIBDIR/cuda12/libcudart.so.12"
	compare libcupti.so.12 "${CUPTI12_LIBDIR:-$CUDA12_HOME/lib64}/libcupti.so.12" \
		"$CUDASIM_LIBDIR/cuda12/libcupti.so.12"
	compare "libcudnn.so.9 (CUDA 12)" "$TESTS_SRCDIR/cudasim/libcudnn.exports" \
		"$CUDASIM_LIBDIR/cuda12/libcudnn.so.9"
fi

# The private hooks are the only addition, and only in the driver.
is "only libcuda.so.1 has sim_* hooks" \
	"$(nm -D --defined-only "$CUDASIM_LIBDIR/libcudart.so.13" "$CUDASIM_LIBDIR/libcupti.so.13" \
		"$CUDASIM_LIBDIR/libnvidia-ml.so.1" "$CUDASIM_LIBDIR/libcudnn.so.9" \
		"$CUDASIM_LIBDIR/libcublas.so.13" "$CUDASIM_LIBDIR/libcublasLt.so.13" |
		awk '$3 ~ /^sim_/' | wc -l | tr -d ' ')" 0

tap_done
