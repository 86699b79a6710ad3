#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace examples/cuda/nvtx-ranges and compare the trace with the ledger;
# its NVTX ranges, marks and registered strings must match what the
# program printed it did.
workload=nvtx-ranges
workload_args=3

# nvtx_EVENT with message=TEXT (percent-encoded as read-trace.py writes it)
nvtx_count() {
	grep -c "^event=cudatrace:nvtx_$2 .*message=$3\( \|\$\)" "$lttng_tmp/$1.events" || :
}

workload_extra_checks() {
	out="$lttng_tmp/$1.out"
	epochs=$(grep -c '^epoch ' "$out" || :)
	forward=$(grep -c ': forward ' "$out" || :)
	optimizer=$(grep -c ': optimizer ' "$out" || :)
	is "one push per epoch" "$(grep -c '^event=cudatrace:nvtx_push .*message=epoch%20' \
		"$lttng_tmp/$1.events" || :)" "$epochs"
	is "one 'forward' push per step" "$(nvtx_count "$1" push forward)" "$forward"
	is "one 'optimizer' push per step (a registered string, resolved)" \
		"$(nvtx_count "$1" push optimizer)" "$optimizer"
	is "as many pops as pushes" "$(trace_count "$1" nvtx_pop)" \
		"$(trace_count "$1" nvtx_push)"
	is "one mark 'model ready'" "$(nvtx_count "$1" mark model%20ready)" 1
	is "one start/end range 'training'" "$(nvtx_count "$1" range_start training)" 1
	is "its end" "$(trace_count "$1" nvtx_range_end)" 1
	is "the domain is named" "$(grep -c '^event=cudatrace:nvtx_domain_create .*name=cudatrace-example' \
		"$lttng_tmp/$1.events" || :)" 1
}

. "$(dirname "$0")/workload.sh"
