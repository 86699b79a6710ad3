#!/bin/sh
# SPDX-License-Identifier: MIT
#
# injection.sh - CUDA_INJECTION64_PATH as the real driver handles it:
# InitializeInjection runs exactly once per process even when several
# threads call cuInit at the same moment (programs/init-threads), and a
# missing library or one without the entry point leaves the program running
# with its usual output and exit status.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

sim_require_libs
sim_program init-threads
program=$sim_path
sim_inject_lib testinject
inject=$sim_inject
sim_inject_lib noinject
noinject=$sim_inject
sim_tmpdir

count_events() { # EVENT LOG
	[ -e "$2" ] || {
		echo 0
		return
	}
	grep -c -E "(^| )ev=$1( |\$)" "$2"
}

# The reference: no injection at all.
sim_run "$sim_tmp/plain" "$sim_tmp/plain.err" "$program"
plain_status=$sim_status
tap_relay "init-threads" "$sim_tmp/plain"
is "init-threads exits 0 without injection" "$plain_status" 0

# The injection library: one InitializeInjection for eight racing cuInits.
for round in 1 2 3; do
	log=$sim_tmp/inject$round.log
	sim_run "$sim_tmp/injected" "$sim_tmp/injected.err" CUDA_INJECTION64_PATH="$inject" \
		TESTINJECT_LOG="$log" "$program"
	is "round $round: exit status with the injection library" "$sim_status" "$plain_status"
	ok "round $round: output with the injection library is the usual one" \
		cmp -s "$sim_tmp/plain" "$sim_tmp/injected"
	is "round $round: InitializeInjection ran exactly once" "$(count_events init "$log")" 1
	is "round $round: the injection set CUPTI up once" "$(count_events setup "$log")" 1
	is "round $round: CUPTI accepted the set-up" "$(count_events error "$log")" 0
done

# Unusable injections are ignored.
sim_run "$sim_tmp/missing" "$sim_tmp/missing.err" \
	CUDA_INJECTION64_PATH="$sim_tmp/no-such-dir/libnothing.so" "$program"
is "a missing injection library: exit status unchanged" "$sim_status" "$plain_status"
ok "a missing injection library: output unchanged" cmp -s "$sim_tmp/plain" "$sim_tmp/missing"

sim_run "$sim_tmp/nosym" "$sim_tmp/nosym.err" CUDA_INJECTION64_PATH="$noinject" "$program"
is "a library without InitializeInjection: exit status unchanged" "$sim_status" "$plain_status"
ok "a library without InitializeInjection: output unchanged" \
	cmp -s "$sim_tmp/plain" "$sim_tmp/nosym"

sim_run "$sim_tmp/empty" "$sim_tmp/empty.err" CUDA_INJECTION64_PATH= "$program"
is "an empty CUDA_INJECTION64_PATH: exit status unchanged" "$sim_status" "$plain_status"
ok "an empty CUDA_INJECTION64_PATH: output unchanged" cmp -s "$sim_tmp/plain" "$sim_tmp/empty"
tap_done
