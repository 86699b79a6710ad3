#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Memory CUDA frees by itself, and VMM memory freed when its handle is
# released and its last mapping unmapped: tests/programs/accounting traced
# in both modes of CUDASIM_NESTED_DRIVER_CALLBACKS, each trace against its
# ledger (check-trace.py: every free of the ledger is one mem_free or, when
# a context's destruction made it, one mem_reclaim; live bytes at every
# point; no address allocated twice without a free between, no free of one
# not allocated), then the two modes' semantic events against each other.
#
#   reset        cudaDeviceReset with memory of every kind live
#   ctx-destroy  cuCtxDestroy of one of two contexts with live memory
#   primary      the last cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxReset
#   exit-live    memory live at exit (the runtime's release at exit, where
#                the simulator makes one: its frees have api=-)
#   vmm          physical memory released while mapped, mapped twice,
#                retained, released after its unmap

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_program accounting
program=$trace_cmd
trace_daemon_or_fail

# Events of TAG's trace named NAME (without provider) whose line matches RE.
count_matching() { # TAG NAME RE
	grep "^event=cudatrace:$2 " "$lttng_tmp/$1.events" | grep -c -- "$3" || :
}

# Frees of TAG's ledger whose api= is API.
ledger_frees() { # TAG API
	grep -c " op=free .* api=$2 " "$lttng_tmp/$1.ledger" || :
}

for situation in reset ctx-destroy primary exit-live vmm; do
	for mode in 0 1; do
		tag="$situation-nested$mode"
		trace_session "$tag" || continue
		CUDASIM_NESTED_DRIVER_CALLBACKS=$mode
		export CUDASIM_NESTED_DRIVER_CALLBACKS
		trace_run "$tag" traced "$program" "$situation"
		unset CUDASIM_NESTED_DRIVER_CALLBACKS
		lttng_session_end "$tag"
		is "$tag: exit status" "$trace_status" 0
		[ "$trace_status" = 0 ] || trace_show_err "$tag"
		trace_read "$tag" || continue
		trace_check "$tag"
		reclaims=$(trace_count "$tag" mem_reclaim)
		case $situation in
		reset)
			expected=$(ledger_frees "$tag" cudaDeviceReset)
			ok "$tag: cudaDeviceReset reclaimed memory ($expected frees in the ledger)" \
				test "$expected" -gt 0
			is "$tag: one mem_reclaim per free of cudaDeviceReset" "$reclaims" "$expected"
			is "$tag: the failed release is undone" \
				"$(trace_count "$tag" mem_free_failed)" 1
			;;
		ctx-destroy | primary)
			expected=$(grep -c " op=free .* api=cu\(CtxDestroy\|DevicePrimaryCtx\)" \
				"$lttng_tmp/$tag.ledger" || :)
			ok "$tag: the context's destruction reclaimed memory ($expected frees in the ledger)" \
				test "$expected" -gt 0
			is "$tag: one mem_reclaim per free of a context's destruction" "$reclaims" "$expected"
			;;
		exit-live)
			is "$tag: one mem_reclaim per free at exit" "$reclaims" \
				"$(ledger_frees "$tag" -)"
			;;
		vmm)
			# Physical memory freed by cuMemUnmap, the handle released
			# before.
			expected=$(grep -c " op=free kind=vmm_physical .* api=cuMemUnmap " \
				"$lttng_tmp/$tag.ledger" || :)
			ok "$tag: cuMemUnmap freed released physical memory ($expected in the ledger)" \
				test "$expected" -ge 2
			is "$tag: no mem_reclaim" "$reclaims" 0
			;;
		esac
	done
	"$trace_python" "$trace_checker" --compare "$lttng_tmp/$situation-nested0.events" \
		"$lttng_tmp/$situation-nested1.events" >"$lttng_tmp/$situation-compare.tap" 2>&1
	tap_relay "$situation: modes 0 and 1" "$lttng_tmp/$situation-compare.tap"
done
tap_done
