#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The toolkits tools/install-deps makes of NVIDIA's PyPI wheels
# (tools/cuda-wheels) where NVIDIA's own are missing, as on a machine with
# CUDA 12's toolkit only:
#
#   13  a toolkit as NVIDIA's is to the build: its nvcc (release 13.0)
#       compiles a CUDA program against its own headers, links it against
#       its libcudart.so and its driver stub (libcuda.so.1, made of
#       cuda.h), and the program runs on the simulated GPU and does there
#       what its source says (the ledger);
#   12  CUDA 12's headers, CUPTI 12 and libcudart.so.12;
#
# and configure, where /usr/local/cuda holds CUDA 12 (in a private mount
# namespace the CUDA 12 tree is bound there) and CUDA_HOME names nothing,
# builds against the CUDA 13 tree and its nvcc.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/trace-run.sh"
trace_locate

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cuda-wheels.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

tree13=$("$trace_srcdir/tools/cuda-wheels" 13 2>"$tmp/err13") ||
	tap_fail_all "tools/cuda-wheels 13 makes the CUDA 13 tree: $(tail -n 3 "$tmp/err13")"
tree12=$("$trace_srcdir/tools/cuda-wheels" 12 2>"$tmp/err12") ||
	tap_fail_all "tools/cuda-wheels 12 makes the CUDA 12 tree: $(tail -n 3 "$tmp/err12")"
is "--path names the CUDA 13 tree once made" "$("$trace_srcdir/tools/cuda-wheels" 13 --path)" "$tree13"

# ---- CUDA 13: nvcc, headers, runtime, driver stub
"$tree13/bin/nvcc" --version >"$tmp/version" 2>&1
ok "its nvcc runs, release 13.0" grep -q 'release 13\.0' "$tmp/version"
cat >"$tmp/scale.cu" <<'EOF'
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= 2;
}

int main()
{
	int version = 0;
	float *d, h[1024] = { 0 };
	if (cuDriverGetVersion(&version) != CUDA_SUCCESS)
		return 1;
	if (cudaMalloc(&d, sizeof h) != cudaSuccess)
		return 2;
	cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
	scale<<<4, 256>>>(d, 1024);
	if (cudaDeviceSynchronize() != cudaSuccess)
		return 3;
	cudaFree(d);
	std::printf("driver %d\n", version);
	return 0;
}
EOF
# Nothing but the tree: no LIBRARY_PATH or CPATH of the machine's toolkit.
if env -u LIBRARY_PATH -u CPATH -u C_INCLUDE_PATH -u CPLUS_INCLUDE_PATH \
	"$tree13/bin/nvcc" -cudart shared -o "$tmp/scale" "$tmp/scale.cu" -lcuda >"$tmp/nvcc.log" 2>&1; then
	tap_result 0 "its nvcc compiles and links a program calling the runtime and the driver"
else
	tap_result 1 "its nvcc compiles and links a program calling the runtime and the driver"
	sed 's/^/#   /' "$tmp/nvcc.log" | tail -n 15
fi
needed=$(readelf -d "$tmp/scale" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
case $needed in
*libcudart.so.13*libcuda.so.1* | *libcuda.so.1*libcudart.so.13*) tap_result 0 "the program needs libcudart.so.13 and libcuda.so.1" ;;
*)
	tap_result 1 "the program needs libcudart.so.13 and libcuda.so.1"
	diag "  NEEDED: $needed"
	;;
esac
soname=$(readelf -d "$tree13/lib64/stubs/libcuda.so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
is "the driver stub's soname is the driver's" "$soname" libcuda.so.1
# The names a program compiled with per-thread default streams, or with
# the first version of a function, links against.
for name in cuInit cuMemAlloc cuMemAlloc_v2 cuMemcpyHtoD_v2_ptds cuLaunchKernel_ptsz cuProfilerStart; do
	ok "the driver stub exports $name" sh -c \
		"readelf --dyn-syms -W '$tree13/lib64/stubs/libcuda.so' | awk '\$8 == \"$name\" && \$7 != \"UND\"' | grep -q ."
done
# cuda.h defines cuGetProcAddress_v2_ptsz itself, static inline: no
# driver has it.
ok "the driver stub exports no function cuda.h defines (cuGetProcAddress_v2_ptsz)" sh -c \
	"! readelf --dyn-syms -W '$tree13/lib64/stubs/libcuda.so' | awk '\$8 == \"cuGetProcAddress_v2_ptsz\"' | grep -q ."
# shellcheck disable=SC2046
env $(trace_python_env) CUDASIM_LEDGER="$tmp/ledger" \
	"$trace_builddir/tests/cudasim/cudasim-env" --libdir "$trace_simdir" \
	"$tmp/scale" >"$tmp/out" 2>"$tmp/err"
status=$?
is "the program runs on the simulated GPU" "$status" 0
[ "$status" = 0 ] || sed 's/^/#   /' "$tmp/err" | tail -n 10
ok "it prints the driver's version" grep -q '^driver 1[0-9]*' "$tmp/out"
ok "the ledger has its 4 KiB allocation" grep -q 'op=alloc .* size=4096 ' "$tmp/ledger"
ok "the ledger has its kernel" grep -q 'op=launch name=[^ ]*scale' "$tmp/ledger"

# ---- CUDA 12: what libcudatrace-cuda12.so and the simulated CUDA 12 runtime need
api12=$(sed -n 's/^#define CUPTI_API_VERSION \([0-9]*\).*/\1/p' "$tree12/include/cupti_version.h" 2>/dev/null)
ok "the CUDA 12 tree has CUPTI 12's headers (CUPTI_API_VERSION ${api12:-none})" \
	test "${api12:-0}" -ge 19 -a "${api12:-0}" -lt 130000
ok "the CUDA 12 tree has libcupti.so.12" test -e "$tree12/lib64/libcupti.so.12"
ok "the CUDA 12 tree has libcudart.so.12" test -e "$tree12/lib64/libcudart.so.12"

# ---- configure on a machine whose /usr/local/cuda holds CUDA 12
flags=""
if unshare -m true 2>/dev/null; then
	flags="-m"
elif unshare -r -m true 2>/dev/null; then
	flags="-r -m"
fi
if [ -z "$flags" ]; then
	skip "no unshare: cannot create a mount namespace (unshare -m, unshare -r -m)" 3
	tap_done
fi
mkdir "$tmp/build"
# shellcheck disable=SC2016,SC2086
unshare $flags --propagation private sh -c '
	cuda=$(readlink -f /usr/local/cuda 2>/dev/null)
	if [ -n "$cuda" ] && [ -d "$cuda" ]; then
		mount --bind "$1" "$cuda" || exit 99
	fi
	cd "$2" && env -u CUDA_HOME "$3/configure" --without-cuda12
' sh "$tree12" "$tmp/build" "$trace_srcdir" >"$tmp/configure.log" 2>&1
status=$?
if [ "$status" = 99 ]; then
	skip "no unshare: cannot bind a directory over /usr/local/cuda in the private mount namespace" 3
	tap_done
fi
is "configure succeeds where /usr/local/cuda holds CUDA 12" "$status" 0
[ "$status" = 0 ] || tail -n 10 "$tmp/configure.log" | sed 's/^/#   /'
is "it builds against the CUDA 13 tree" \
	"$(sed -n "s/^CUDA_HOME = //p" "$tmp/build/Makefile" 2>/dev/null)" "$tree13"
is "with the tree's nvcc" "$(sed -n "s/^NVCC = //p" "$tmp/build/Makefile" 2>/dev/null)" "$tree13/bin/nvcc"
tap_done
