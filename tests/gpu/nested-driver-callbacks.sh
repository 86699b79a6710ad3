#!/bin/sh
# SPDX-License-Identifier: MIT
#
# nested-driver-callbacks.sh - does the real stack report the driver calls a
# runtime call makes? The simulator can do either
# (CUDASIM_NESTED_DRIVER_CALLBACKS) and assumes that real drivers do not;
# this records what the real driver, runtime and CUPTI do: a driver call
# whose entry..exit window lies inside a runtime call's on the same thread
# (each recorded once, with its entry: doc/events.md, "Traced calls") is a
# nested callback. The answer is a TAP diagnostic, not a result: what is
# asserted holds either way, that each operation the program printed is
# exactly one semantic event (mem_alloc, mem_free, memcpy, memset, launch)
# named after the outermost (runtime) call.
#
# Skips everything (TAP `1..0 # SKIP no GPU: ...`) without a real GPU.

gpu_here=$(cd "$(dirname "$0")" && pwd)
. "$gpu_here/../lib/gpu-run.sh"

gpu_setup "$@"
diag "GPUs: $gpu_names"

nested_in=""
quiet_in=""
for example in allocations transfers leaky-steps; do
	trace_workload_or_fail "$example" || continue
	trace_session "$example" || continue
	# shellcheck disable=SC2086
	gpu_run "$example" traced $trace_cmd
	lttng_session_end "$example"
	is "$example runs traced on the GPU" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$example"
	trace_read "$example" || continue
	gpu_check_printout "$example" "$example" --checks process,printout,ops,nesting
	if grep -q '^# nested driver callbacks: reported' "$lttng_tmp/$example.check"; then
		nested_in="$nested_in $example"
	elif grep -q '^# nested driver callbacks: not reported' "$lttng_tmp/$example.check"; then
		quiet_in="$quiet_in $example"
	fi
done

if [ -n "$nested_in" ]; then
	diag "the real stack reports driver callbacks nested inside runtime calls: yes" \
		"(in$nested_in${quiet_in:+; not in$quiet_in})"
	diag "tests/cudasim assumes it does not (CUDASIM_NESTED_DRIVER_CALLBACKS=0):" \
		"this stack behaves as mode 1"
elif [ -n "$quiet_in" ]; then
	diag "the real stack reports driver callbacks nested inside runtime calls: no" \
		"(in$quiet_in), as tests/cudasim assumes (CUDASIM_NESTED_DRIVER_CALLBACKS=0)"
fi
tap_done
