# SPDX-License-Identifier: MIT
#
# export-checks.sh - what the export tests share (POSIX sh), for their
# workload_extra_checks (tests/trace/workload.sh, which sources tap.sh,
# lttng-session.sh and trace-run.sh):
#
#   export_gpu_time TAG [ARGS...]  `cudatrace export --format ctf` of the
#                         trace of run TAG into $export_out: it exits with
#                         0 and warns of nothing, and check-ctf-export.py
#                         (with ARGS) finds the GPU-time trace true to TAG's
#                         ledger and to the trace (relayed as TAP)

export_gpu_time() {
	export_tag=$1
	shift
	export_cmd=${CUDATRACE:-$trace_builddir/cli/cudatrace}
	export_out=$lttng_tmp/gpu-time
	export_status=0
	"$export_cmd" export --format ctf -o "$export_out" "$lttng_trace" \
		>"$lttng_tmp/export.out" 2>"$lttng_tmp/export.err" || export_status=$?
	is "export --format ctf exits 0" "$export_status" 0
	[ "$export_status" = 0 ] || sed 's/^/#   /' "$lttng_tmp/export.err"
	ok "export --format ctf warns of nothing (nothing dropped or late)" \
		test ! -s "$lttng_tmp/export.err"
	"$trace_python_bt2" "$trace_srcdir/tests/trace/check-ctf-export.py" \
		--ledger "$lttng_tmp/$export_tag.ledger" --trace "$lttng_trace" --export "$export_out" \
		"$@" >"$lttng_tmp/export.tap" 2>&1
	tap_relay "GPU-time trace" "$lttng_tmp/export.tap"
}
