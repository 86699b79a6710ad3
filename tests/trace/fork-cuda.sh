#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A child forked without exec that does CUDA work (programs/fork-cuda).
# CUDA and CUPTI carry none of their state across fork(), so the child runs
# untraced; the ledger has its work under its pid. The trace says that the
# parent forked it (process_fork, with the ledger's child pid) and holds no
# event of it, and the report names it as untraced, in its trace section
# and on its first page; the parent's work is all there.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_program fork-cuda
trace_forks
program=$trace_cmd
cudatrace="$trace_builddir/cli/cudatrace"
[ -x "$cudatrace" ] || tap_fail_all "cudatrace is not built ($cudatrace)"
trace_daemon_or_fail

tag=forked
if trace_session "$tag"; then
	trace_run "$tag" traced $program
	lttng_session_end "$tag"
	is "$tag: exit status" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	child=$(sed -n 's/^child=\([0-9]*\) status=0$/\1/p' "$lttng_tmp/$tag.out")
	ok "$tag: the child did its CUDA work" test -n "$child"
	parent=$(sed -n 's/.* pid=\([0-9]*\) .*/\1/p' "$lttng_tmp/$tag.ledger" | grep -vx "$child" |
		sort -u)
	is "$tag: the ledger has the child's copy" \
		"$(grep -c " pid=$child .* op=memcpy " "$lttng_tmp/$tag.ledger")" 1
	if trace_read "$tag"; then
		is "$tag: the trace says the parent forked the child" \
			"$(sed -n "s/^event=cudatrace:process_fork .*vpid=$parent .*child_pid=\([0-9]*\).*/\1/p" \
				"$lttng_tmp/$tag.events")" "$child"
		is "$tag: and holds no event of the child" \
			"$(grep -c "^event=cudatrace:.* vpid=$child " "$lttng_tmp/$tag.events")" 0
	fi
	status=0
	"$cudatrace" report --format json -o "$lttng_tmp/$tag.json" "$lttng_trace" \
		2>"$lttng_tmp/$tag.report-err" || status=$?
	is "$tag: cudatrace report succeeds" "$status" 0
	is "$tag: the report names the child as untraced, with its pid and its parent's" \
		"$("$trace_python" -c 'import json,sys
d = json.load(open(sys.argv[1]))["trace"]
print(" ".join("%s:%s" % (c["pid"], c["child_pid"]) for c in d["untraced_children"]),
      d["untraced_child_count"], [p["forks"] for p in d["processes"]])' "$lttng_tmp/$tag.json")" \
		"$parent:$child 1 [1]"
	is "$tag: the report counts the parent's copies alone" \
		"$("$trace_python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["transfers"]["copies"])' \
			"$lttng_tmp/$tag.json")" \
		"$(grep -c " pid=$parent .* op=memcpy " "$lttng_tmp/$tag.ledger")"
	status=0
	"$cudatrace" report --brief "$lttng_trace" >"$lttng_tmp/$tag.brief" 2>/dev/null ||
		status=$?
	is "$tag: cudatrace report --brief succeeds" "$status" 0
	ok "$tag: its first page names the child" \
		grep -q "1 child process forked without exec, not traced: pid $child (of $parent)" \
		"$lttng_tmp/$tag.brief"
fi
tap_done
