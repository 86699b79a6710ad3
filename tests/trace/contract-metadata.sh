#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The metadata of a trace libcudatrace recorded agrees with the event
# contract (contract/check-metadata.py): every event, every field the
# analyzers read, every type and enumeration, and nothing more.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_daemon_or_fail

trace_require_workload transfers
tag=contract
if trace_session "$tag"; then
	# shellcheck disable=SC2086
	trace_run "$tag" traced $trace_cmd
	lttng_session_end "$tag"
	is "$tag: exit status" "$trace_status" 0
	"$trace_python_bt2" "$trace_srcdir/tests/contract/check-metadata.py" "$lttng_trace" \
		>"$lttng_tmp/$tag.tap" 2>&1
	tap_relay "$tag" "$lttng_tmp/$tag.tap"
fi
tap_done
