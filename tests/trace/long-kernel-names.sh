#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Kernels whose mangled names are longer than CUDATRACE_MAX_STRING
# (programs/long-names: C++ template kernels of about 340 and 410 bytes,
# as PyTorch's are): a kernel_name event holds the name whole up to
# CT_KERNEL_NAME_MAX (2048) bytes, whatever CUDATRACE_MAX_STRING is, so
# that the report can demangle it (doc/events.md, "kernel_name"):
#   - each launch's kernel is the ledger's, name and all (check-trace.py's
#     ops), with the default cap (256) and with a cap of 64 (which cuts no
#     API name of the program: the check compares them too);
#   - the report names both kernels demangled, in the program's terms.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
trace_require_program long-names
program=$trace_cmd
cudatrace="$trace_builddir/cli/cudatrace"
[ -x "$cudatrace" ] || tap_fail_all "cudatrace is not built ($cudatrace)"
trace_daemon_or_fail

for cap in 256 64; do
	tag="names-$cap"
	trace_session "$tag" || continue
	trace_run "$tag" traced env CUDATRACE_MAX_STRING=$cap "$program" 3
	lttng_session_end "$tag"
	is "$tag: exit status" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	is "$tag: the program made its rounds" "$(cat "$lttng_tmp/$tag.out")" "rounds=3"
	ok "$tag: the ledger's kernel names are longer than the cap" \
		test "$(sed -n 's/.* name=\(_Z[^ ]*\).*/\1/p' "$lttng_tmp/$tag.ledger" |
			awk '{ print length($0) }' | sort -n | head -n 1)" -gt 300
	trace_read "$tag" && trace_check "$tag" --checks readable,ops
	status=0
	"$cudatrace" report --format json -o "$lttng_tmp/$tag.json" "$lttng_trace" \
		2>"$lttng_tmp/$tag.report-err" || status=$?
	is "$tag: cudatrace report succeeds" "$status" 0
	is "$tag: the report names both kernels, demangled" \
		"$("$trace_python" -c 'import json, sys
names = [k["name"] for k in json.load(open(sys.argv[1]))["kernels"]]
print(sum(n.startswith("void a_numerics_library_whose_namespaces") and
          "elementwise_kernel_through_layers_of_templates<" in n and n.endswith("float*, int)")
          for n in names))' "$lttng_tmp/$tag.json")" 2
done
tap_done
