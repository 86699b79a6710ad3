#!/bin/sh
# SPDX-License-Identifier: MIT
#
# No LTTng session daemon at all: a traced program runs as it would
# untraced - same output, same stderr but for at most one 'cudatrace: '
# line, same exit status - for every example workload. The test runs in a
# private mount namespace where no daemon was started.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
lttng_private_dirs_or_end

for workload in allocations transfers threads driver-api python fork-exec; do
	trace_workload_or_fail "$workload" || continue
	trace_run "$workload-plain" plain $trace_cmd
	plain_status=$trace_status
	trace_run "$workload-traced" traced $trace_cmd
	is "$workload: exit status $plain_status, as untraced" "$trace_status" "$plain_status"
	ok "$workload: same output" trace_same_output "$workload-plain" "$workload-traced"
	notes=$(grep -c '^cudatrace: ' "$lttng_tmp/$workload-traced.err" || :)
	ok "$workload: at most one 'cudatrace: ' line on stderr ($notes)" test "$notes" -le 1
	grep -v '^cudatrace: ' "$lttng_tmp/$workload-traced.err" >"$lttng_tmp/$workload.err-rest"
	ok "$workload: nothing else on stderr than untraced" \
		cmp -s "$lttng_tmp/$workload-plain.err" "$lttng_tmp/$workload.err-rest"
done
tap_done
