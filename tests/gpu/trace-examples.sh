#!/bin/sh
# SPDX-License-Identifier: MIT
#
# trace-examples.sh - the examples/cuda workloads traced on a real GPU (the
# real driver, CUDA 13 runtime and CUPTI), each compared with what it
# printed it did (check-printout.py): every allocation and free printed is
# exactly one mem_alloc/mem_free with its address and size, every copy one
# memcpy with its direction, size and pinned/pageable memory, every memset
# and launch one event; every gpu_* record has its host event's correlation
# id; the GPU interval of each copy that blocks the host lies inside its
# call. One test point per example says that the program's first runtime
# call, the one whose lazy initialisation loads libcudatrace, is traced:
# the simulator assumes that the real runtime initialises before it opens
# the first call's callback frame, and only a real runtime can confirm it.
#
# Each example also runs untraced: the traced run must exit and print the
# same (addresses masked). two-devices runs when nvidia-smi lists two GPUs.
# transfers and threads run once more with every GPU record written whole
# (CUDATRACE_COMPACT=0): the checker compares each record with its call
# on what the compact forms take from the call (a copy's bytes and stream,
# a launch's configuration, stream and device), which CUPTI documents as
# the same and only the real CUPTI can confirm.
# Skips everything (TAP `1..0 # SKIP no GPU: ...`) without a real GPU.

gpu_here=$(cd "$(dirname "$0")" && pwd)
. "$gpu_here/../lib/gpu-run.sh"

gpu_setup "$@"
diag "GPUs: $gpu_names"

# trace_example NAME [ARGS...]: run NAME untraced and traced, then check.
trace_example() {
	example=$1
	shift
	trace_workload_or_fail "$example" || return 0
	# shellcheck disable=SC2086
	gpu_run "$example-plain" plain $trace_cmd "$@"
	if [ "$example" = two-devices ] && [ "$trace_status" = 77 ]; then
		skip "no GPU: a second one for two-devices: $(head -n 1 "$lttng_tmp/$example-plain.out")"
		return 0
	fi
	is "$example runs on the GPU untraced" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$example-plain"
	plain_status=$trace_status
	trace_session "$example" || return 0
	# shellcheck disable=SC2086
	gpu_run "$example" traced $trace_cmd "$@"
	lttng_session_end "$example"
	is "$example traced: same exit status" "$trace_status" "$plain_status"
	[ "$trace_status" = "$plain_status" ] || trace_show_err "$example"
	ok "$example traced: same output (addresses masked)" \
		trace_same_output "$example-plain" "$example"
	if trace_read "$example"; then
		gpu_check_printout "$example" "$example"
	fi
}

# trace_whole NAME [ARGS...]: NAME traced with every GPU record whole, then checked.
trace_whole() {
	example=$1
	shift
	trace_workload_or_fail "$example" || return 0
	trace_session "$example-whole" || return 0
	# shellcheck disable=SC2086
	gpu_run "$example-whole" traced env CUDATRACE_COMPACT=0 $trace_cmd "$@"
	lttng_session_end "$example-whole"
	is "$example traced, records whole: exits 0" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$example-whole"
	if trace_read "$example-whole"; then
		gpu_check_printout "$example-whole" "$example"
	fi
}

# The arguments of tests/trace/workload-*.sh, and two rounds of transfers
# (the same addresses copied again).
trace_example allocations --leak
trace_example transfers 2
trace_example threads 4 25
trace_example nvtx-ranges 3
trace_example leaky-steps 6
trace_whole transfers 2
trace_whole threads 4 25
if [ "$gpu_count" -ge 2 ]; then
	trace_example two-devices
else
	skip "no GPU: a second one for two-devices: nvidia-smi lists $gpu_count"
fi
tap_done
