#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A release is written when its call is entered, before the driver can give
# the same address to another thread: with threads allocating and freeing
# in parallel (tests/programs/accounting churn: the simulator hands a freed
# address to whichever thread allocates next), the trace has nothing
# discarded, no address allocated twice without a free between and no free
# of an address it does not hold; every operation of the ledger is one
# event, live bytes agree. And a release that fails is undone: its
# mem_free_failed puts the memory back. In both modes of
# CUDASIM_NESTED_DRIVER_CALLBACKS.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_program accounting
program=$trace_cmd
trace_daemon_or_fail

threads=8
rounds=1000

for mode in 0 1; do
	CUDASIM_NESTED_DRIVER_CALLBACKS=$mode
	export CUDASIM_NESTED_DRIVER_CALLBACKS

	tag="churn-nested$mode"
	# Room for every event of 8 x 1000 x 4 calls.
	if trace_session "$tag" 4M 16; then
		trace_run "$tag" traced "$program" churn $threads $rounds
		lttng_session_end "$tag"
		is "$tag: exit status" "$trace_status" 0
		[ "$trace_status" = 0 ] || trace_show_err "$tag"
		if trace_read "$tag"; then
			trace_check "$tag" --checks readable,ops,live,addresses
			is "$tag: a mem_free for every free ($threads x $rounds x 2 + 1)" \
				"$(trace_count "$tag" mem_free)" $((threads * rounds * 2 + 1))
		fi
	fi

	tag="fails-nested$mode"
	if trace_session "$tag"; then
		trace_run "$tag" traced "$program" release-fails
		lttng_session_end "$tag"
		is "$tag: exit status" "$trace_status" 0
		[ "$trace_status" = 0 ] || trace_show_err "$tag"
		if trace_read "$tag"; then
			trace_check "$tag"
			is "$tag: each failed release undone" \
				"$(trace_count "$tag" mem_free_failed)" 3
		fi
	fi
	unset CUDASIM_NESTED_DRIVER_CALLBACKS
done
tap_done
