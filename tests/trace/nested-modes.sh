#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Both modes of CUDASIM_NESTED_DRIVER_CALLBACKS give the same semantic
# events: real drivers do not report the driver calls a runtime call makes
# (mode 0), but one that did (mode 1) must not make cudatrace emit a second
# mem_alloc, memcpy, ... for the same operation. Each run is checked against
# its own ledger, then the two traces are compared with each other.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_daemon_or_fail

# api_call events of the driver domain in TAG's events: the nested driver
# calls of mode 1 are recorded so, their runtime call by its semantic event.
driver_calls() {
	grep -c '^event=cudatrace:api_call .*domain=driver' "$lttng_tmp/$1.events" || :
}

for workload in allocations transfers python; do
	trace_workload_or_fail "$workload" || continue
	for mode in 0 1; do
		tag="$workload-nested$mode"
		trace_session "$tag" || continue
		CUDASIM_NESTED_DRIVER_CALLBACKS=$mode
		export CUDASIM_NESTED_DRIVER_CALLBACKS
		# shellcheck disable=SC2086
		trace_run "$tag" traced $trace_cmd
		unset CUDASIM_NESTED_DRIVER_CALLBACKS
		lttng_session_end "$tag"
		is "$tag: exit status" "$trace_status" 0
		[ "$trace_status" = 0 ] || trace_show_err "$tag"
		if trace_read "$tag"; then
			trace_check "$tag" --checks readable,ops,live,corr,calls
		fi
	done
	# The switch must have done something, or the comparison proves nothing.
	quiet=$(driver_calls "$workload-nested0")
	nested=$(driver_calls "$workload-nested1")
	ok "$workload: mode 1 reports nested driver calls ($quiet driver api_call in mode 0, $nested in mode 1)" \
		test "$nested" -gt "$quiet"
	"$trace_python" "$trace_checker" --compare "$lttng_tmp/$workload-nested0.events" \
		"$lttng_tmp/$workload-nested1.events" >"$lttng_tmp/$workload-compare.tap" 2>&1
	tap_relay "$workload: modes 0 and 1" "$lttng_tmp/$workload-compare.tap"
done
tap_done
