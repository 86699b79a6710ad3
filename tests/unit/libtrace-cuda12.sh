#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The tracer built against CUPTI 12 (libcudatrace-cuda12.so, for drivers
# older than R580) is the same tracer as libcudatrace.so, against the other
# CUPTI: it needs libcupti.so.12 and libcudatrace.so libcupti.so.13, each
# exports the entry points CUDA and NVTX call, and every CUPTI function the
# CUDA 12 one calls is one the real CUPTI 12 it was built against has (it
# loads with every symbol bound at once: none of CUPTI 13's functions).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"

top_srcdir=$(cd "$here/../.." && pwd)
builddir=${CUDATRACE_BUILDDIR:-$top_srcdir}
libs="$builddir/libtrace/.libs"
lib12="$libs/libcudatrace-cuda12.so"
lib13="$libs/libcudatrace.so"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/libtrace-cuda12.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

for lib in "$lib12" "$lib13"; do
	[ -e "$lib" ] || tap_fail_all "$lib is not built"
done
command -v readelf >/dev/null || tap_fail_all "no readelf (Debian: binutils)"

needed() { # LIB: the sonames it needs, one a line
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}
exports() { # LIB NAME: LIB defines the function NAME
	readelf --dyn-syms -W "$1" | awk -v name="$2" \
		'$4 == "FUNC" && $5 == "GLOBAL" && $7 != "UND" && $8 == name { found = 1 }
		END { exit !found }'
}

needed "$lib12" >"$tmp/needed12"
needed "$lib13" >"$tmp/needed13"
ok "the CUDA 12 tracer needs libcupti.so.12" grep -qx libcupti.so.12 "$tmp/needed12"
ok "the CUDA 12 tracer needs no libcupti.so.13" sh -c "! grep -q libcupti.so.13 '$tmp/needed12'"
ok "the CUDA 13 tracer needs libcupti.so.13" grep -qx libcupti.so.13 "$tmp/needed13"
ok "the CUDA 13 tracer needs no libcupti.so.12" sh -c "! grep -q libcupti.so.12 '$tmp/needed13'"
for entry in InitializeInjection InitializeInjectionNvtx2; do
	ok "the CUDA 12 tracer exports $entry" exports "$lib12" "$entry"
done

# The simulator, first on LD_LIBRARY_PATH, has no libcupti.so.12: the
# tracer's RUNPATH finds the real one it was built against. Python needs
# the sanitizer's runtime first to load a library of a build configured
# with --enable-sanitizers (trace_python_env).
. "$here/../lib/trace-run.sh"
trace_locate
# shellcheck disable=SC2046
if env $(trace_python_env) LD_BIND_NOW=1 "$trace_python" \
	-c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$lib12" 2>"$tmp/load.err"; then
	tap_result 0 "the CUDA 12 tracer loads against CUPTI 12 with every symbol bound"
else
	tap_result 1 "the CUDA 12 tracer loads against CUPTI 12 with every symbol bound"
	sed 's/^/# /' "$tmp/load.err"
fi
tap_done
