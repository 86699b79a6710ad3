#!/bin/sh
# SPDX-License-Identifier: MIT
#
# twins.sh - run programs/twins on the simulator: every per-thread default
# stream twin (_ptds, _ptsz) that libcuda.so.1 and libcudart.so.13 export
# is reported as itself, and the twins run on the per-thread stream.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_program twins
program=$sim_path
command -v nm >/dev/null || { echo "Bail out! nm not found"; exit 1; }
sim_tmpdir

# twins KIND LIB: "KIND NAME" for each exported NAME_ptds / NAME_ptsz.
twins() {
	nm -D --defined-only "$CUDASIM_LIBDIR/$2" |
		awk -v kind="$1" 'NF == 3 && $2 == "T" && $3 ~ /_pt(ds|sz)(@|$)/ {
			sub(/@.*/, "", $3)
			print kind, $3
		}' | sort -u
}
{
	twins driver libcuda.so.1
	twins runtime libcudart.so.13
} >"$sim_tmp/twins"
diag "$(wc -l <"$sim_tmp/twins" | tr -d ' ') twins"

sim_run "$sim_tmp/out" "$sim_tmp/err" CUDASIM_LEDGER="$sim_tmp/ledger" "$program" "$sim_tmp/twins"
tap_relay twins "$sim_tmp/out"
sim_check_status twins
tap_done
