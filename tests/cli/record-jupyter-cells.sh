#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Memory charged to notebook cells: a kernel installed by `cudatrace
# jupyter install` (Debian's python3-ipykernel and python3-jupyter-client,
# driven by jupyter-cells-driver.py as a notebook server would) runs cells
# that allocate and free on the simulated GPU through ctypes — the first
# before CUDA is initialised, one that frees another's memory, one that
# raises — and is killed with SIGKILL in the middle of its last cell.
# The trace marks each cell (cell_begin, cell_end), and the report's
# cells[] and the post-mortem charge the memory live at the kernel's
# death to the right In [N], checked against what the cells printed and
# the simulator's ledger (check-cells.py). The Perfetto export shows the
# cells as slices, decoded with Perfetto's own protos (check-cells-perfetto.py,
# in a virtual environment with PyPI's perfetto).

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"
. "$cli_here/../lib/perfetto-venv.sh"

cli_jupyter_setup cells.ledger "$@"
perfetto_python "${TESTS_BUILDDIR:-$trace_builddir/tests}"
traces="$lttng_tmp/cell-traces"

"$cli_bin" jupyter install --name cudatrace-cells --python "$jupyter_python" \
	--trace-dir "$traces" -- --nvml-period=0 >"$lttng_tmp/install.out" 2>&1
is "install exits with 0" "$?" 0
ok "the cells script is beside the kernelspec" \
	test -s "$JUPYTER_DATA_DIR/kernels/cudatrace-cells/cudatrace-cells.py"

timeout 300 "$jupyter_python" "$cli_here/jupyter-cells-driver.py" cudatrace-cells \
	"$lttng_tmp/kernel.log" "$lttng_tmp/cells.json" >"$lttng_tmp/driver.out" 2>"$lttng_tmp/driver.err"
is "the driver ran" "$?" 0
[ -s "$lttng_tmp/driver.err" ] && tail -n 15 "$lttng_tmp/driver.err" | sed 's/^/#   /'
ok "kernel killed mid-cell: record exits with 128+9" \
	grep -q '"record_status": 137' "$lttng_tmp/cells.json"
ok "the kernel said nothing about its cells" \
	cli_lacks "$lttng_tmp/kernel.log" 'cells are not marked'
trace=$(grep -l 'end=killed' "$traces"/*/cudatrace.info 2>/dev/null | head -n 1)
trace=${trace%/cudatrace.info}
ok "the killed kernel's trace is there" test -n "$trace"
ok "its post-mortem is beside it" grep -q '^Post-mortem' "$trace/postmortem.txt"
sed 's/^/#   /' "$trace/postmortem.txt"

# The events themselves, as babeltrace2 reads them.
if trace_read cells "$trace"; then
	is "a cell_begin per cell run" "$(grep -c 'event=cudatrace:cell_begin' "$lttng_tmp/cells.events")" 8
	is "a cell_end per cell that ended" "$(grep -c 'event=cudatrace:cell_end' "$lttng_tmp/cells.events")" 7
	ok "In [1] began before CUDA was initialised" \
		awk '/event=cudatrace:cell_begin/ && !b { b = NR } /event=cudatrace:context_create/ && !c { c = NR }
		     END { exit !(b && c && b < c) }' "$lttng_tmp/cells.events"
else
	for what in cell_begin cell_end "In [1] before CUDA"; do
		tap_result 1 "$what: the trace does not read back"
	done
fi

"$cli_bin" report --format json "$trace" >"$lttng_tmp/report.json" 2>"$lttng_tmp/report.err"
is "report exits with 0" "$?" 0
"$cli_bin" report "$trace" >"$lttng_tmp/report.txt" 2>&1
ok "the text report has the cells table" grep -q 'Memory charged to cells' "$lttng_tmp/report.txt"
sed -n '/^Notebook cells/,/^$/p' "$lttng_tmp/report.txt" | sed 's/^/#   /'
"$cli_bin" report --format csv --analysis cells "$trace" >"$lttng_tmp/report.csv" 2>&1
ok "the CSV report has a row per cell, with its pid" \
	test "$(sed -n '/^# cells.cells$/,/^$/p' "$lttng_tmp/report.csv" | grep -c '^[0-9]')" -eq 8
sed -n '/^# cells.cells$/,/^$/p' "$lttng_tmp/report.csv" | sed 's/^/#   /'
"$trace_python" "$cli_here/check-cells.py" "$lttng_tmp/cells.json" "$lttng_tmp/cells.ledger" \
	"$lttng_tmp/report.json" "$trace/postmortem.txt" >"$lttng_tmp/check.tap" 2>&1
tap_relay cells "$lttng_tmp/check.tap"

# The cells on a timeline: the Perfetto export, decoded with Perfetto's protos.
"$cli_bin" export --format perfetto -o "$lttng_tmp/cells.pftrace" "$trace" \
	>"$lttng_tmp/export.out" 2>&1
is "export exits with 0" "$?" 0
"$perfetto_python" "$cli_here/check-cells-perfetto.py" "$lttng_tmp/cells.pftrace" \
	"$lttng_tmp/cells.json" >"$lttng_tmp/perfetto.tap" 2>&1
tap_relay perfetto "$lttng_tmp/perfetto.tap"

# The script run by an IPython that cudatrace record does not trace: it
# registers nothing, or, given a library without the functions, says so;
# either way the cells run and the namespace is the user's.
script="$JUPYTER_DATA_DIR/kernels/cudatrace-cells/cudatrace-cells.py"
untraced() {
	"$jupyter_python" - "$script" <<'PY'
import sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
before = len(shell.events.callbacks["pre_run_cell"])
shell.safe_execfile(sys.argv[1], shell.user_ns, raise_exceptions=True)
hooks = len(shell.events.callbacks["pre_run_cell"]) - before
result = shell.run_cell("x = 6 * 7", store_history=True)
names = sorted(n for n in shell.user_ns if "cudatrace" in n)
print("hooks=%d ran=%s names=%s" % (hooks, result.success and shell.user_ns["x"] == 42, names))
PY
}
(unset CUDATRACE_SESSION; untraced) >"$lttng_tmp/untraced.out" 2>&1
ok "untraced: the script hooks nothing, the cell runs" \
	grep -qx 'hooks=0 ran=True names=\[\]' "$lttng_tmp/untraced.out"
(CUDATRACE_SESSION=x CUDA_INJECTION64_PATH=/nonexistent/libcudatrace.so untraced) \
	>"$lttng_tmp/nolib.out" 2>&1
ok "no tracer library: the script says so" grep -q 'cells are not marked' "$lttng_tmp/nolib.out"
ok "and the cell runs" grep -qx 'hooks=0 ran=True names=\[\]' "$lttng_tmp/nolib.out"
sed 's/^/#   /' "$lttng_tmp/untraced.out" "$lttng_tmp/nolib.out"

"$cli_bin" jupyter uninstall --name cudatrace-cells >/dev/null 2>&1
ok "uninstall removes the script and the kernel's directory" \
	test ! -e "$JUPYTER_DATA_DIR/kernels/cudatrace-cells"
is "no session is left in the daemon" "$(cli_sessions)" 0
tap_done
