#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace jupyter install|uninstall` and a real Jupyter kernel under
# `cudatrace record` (Debian's python3-ipykernel and python3-jupyter-client,
# driven by jupyter-driver.py as a notebook server would): one trace per
# kernel start; cells that allocate on the simulated GPU through ctypes;
# a kernel killed with SIGKILL mid-session leaves its trace, and its
# post-mortem beside it and in the server's log, and what it wrote on its
# stderr beside it; a kernel killed with its
# whole process group (record too) is cleaned up by the next start. Also
# the install and uninstall errors.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_jupyter_setup nb.ledger "$@"
traces="$lttng_tmp/nb-traces"
spec="$JUPYTER_DATA_DIR/kernels/cudatrace-test/kernel.json"

# ---- install
"$cli_bin" jupyter install --name cudatrace-test --python "$jupyter_python" \
	--trace-dir "$traces" -- --nvml-period=0 >"$lttng_tmp/install.out" 2>&1
is "install exits with 0" "$?" 0
ok "install says where the traces go" grep -q "writes a trace in $traces" "$lttng_tmp/install.out"
ok "the kernelspec is written" test -s "$spec"
"$jupyter_python" - "$spec" "$cli_bin" "$jupyter_python" "$traces" >"$lttng_tmp/spec.check" 2>&1 <<'PY'
import json, os, sys
spec = json.load(open(sys.argv[1]))
argv = spec["argv"]
assert os.path.realpath(argv[0]) == os.path.realpath(sys.argv[2]), argv
assert argv[1:4] == ["record", "--trace-dir", sys.argv[4]], argv
assert argv[4] == "--nvml-period=0", argv
assert argv[5:11] == ["--", sys.argv[3], "-m", "ipykernel_launcher", "-f", "{connection_file}"], argv
cells = os.path.join(os.path.dirname(sys.argv[1]), "cudatrace-cells.py")
assert argv[11:] == ["--IPKernelApp.exec_files=" + cells], argv
assert os.path.isfile(cells), cells
assert spec["interrupt_mode"] == "message"
assert spec["language"] == "python"
print("ok")
PY
ok "the kernelspec runs the kernel under cudatrace record" grep -qx ok "$lttng_tmp/spec.check"
[ -s "$lttng_tmp/spec.check" ] && sed 's/^/#   /' "$lttng_tmp/spec.check"

# ---- a real kernel, and the example notebook (the release tarball has it)
notebook="$trace_srcdir/examples/notebooks/simulated-gpu-memory.ipynb"
ok "the example notebook is in the tree" test -f "$notebook"
ok "and the ctypes module its cells import" test -f "$trace_srcdir/examples/python/gpu_ctypes.py"
starts=5
timeout 300 "$jupyter_python" "$cli_here/jupyter-driver.py" cudatrace-test "$lttng_tmp/kernel" \
	"$notebook" >"$lttng_tmp/driver.out" 2>"$lttng_tmp/driver.err"
is "the driver ran" "$?" 0
[ -s "$lttng_tmp/driver.err" ] && tail -n 15 "$lttng_tmp/driver.err" | sed 's/^/#   /'
sed 's/^/#   /' "$lttng_tmp/driver.out"
ok "a cell allocating through ctypes was running" grep -qx 'cells_1=ok,running' "$lttng_tmp/driver.out"
ok "the kernel is the child of cudatrace record" \
	grep -qx 'kernel_is_child_of_record=True' "$lttng_tmp/driver.out"
ok "kernel killed mid-cell: record exits with 128+9" \
	grep -qx 'record_status_1=137' "$lttng_tmp/driver.out"
ok "the post-mortem is in the server's log" grep -q '^Post-mortem: python3' "$lttng_tmp/kernel-1.log"
ok "it shows the 3 MiB the cells kept" grep -q '3.00 MiB live' "$lttng_tmp/kernel-1.log"
first=$(grep -l 'end=killed' "$traces"/*/cudatrace.info 2>/dev/null | head -n 1)
first=${first%/cudatrace.info}
ok "the killed kernel's trace is there" test -n "$first"
ok "its post-mortem is beside it" grep -q '^Post-mortem' "$first/postmortem.txt"
is "its notes: killed by a signal, not by the OOM killer" \
	"$(sed -n 's/^death=//p; s/^oom_kills=//p' "$first/cudatrace.info" | tr '\n' ' ')" "killed 0 "
ok "its post-mortem says the sender is not known" \
	grep -q 'who sent it is not known: the OOM killer killed no process' "$first/postmortem.txt"
# What the kernel wrote on its stderr went to the server's log, and is kept beside its trace.
ok "the killed kernel's stderr is kept beside its trace, under its pid" \
	grep -qx "pid $(sed -n 's/^pid=//p' "$first/cudatrace.info")" "$first/stderr.log"
if [ -n "$first" ] && trace_read first "$first"; then
	tap_result 0 "the killed kernel's trace reads back"
	# The ledger holds all four kernels: compare the first one's process only.
	kernel_pid=$(sed -n 's/^pid=//p' "$first/cudatrace.info")
	grep " pid=$kernel_pid " "$lttng_tmp/nb.ledger" >"$lttng_tmp/first.ledger"
	trace_check first --checks ops,live
else
	tap_result 1 "the killed kernel's trace reads back"
fi
ok "clean shutdown: record exits with 0" grep -qx 'record_status_2=0' "$lttng_tmp/driver.out"
ok "killed with its process group: record died too" \
	grep -qx 'record_status_3=-9' "$lttng_tmp/driver.out"
ok "the next start closed the session left behind" \
	grep -q 'closed the session cudatrace-.* left by a cudatrace record that died' "$lttng_tmp/kernel-4.log"
ok "the fourth kernel ran" grep -qx 'cells_4=ok' "$lttng_tmp/driver.out"
ok "the example notebook's cells ran" grep -qx 'notebook_cells=ok,ok,ok,ok' "$lttng_tmp/driver.out"
ok "its last cell killed the kernel" grep -qx 'record_status_5=137' "$lttng_tmp/driver.out"
ok "its post-mortem shows the 80 MiB it kept" grep -q '80.00 MiB live' "$lttng_tmp/kernel-5.log"
# The failures come after the kill that ended it, the first of them on the first page.
ok "and its out-of-memory error, fragmented" \
	grep -q 'cudaMalloc of .* failed on device 0: memory fragmented' "$lttng_tmp/kernel-5.log"
last=$(grep -l 'gpu_failed_bytes=' "$traces"/*/cudatrace.info 2>/dev/null | head -n 1)
# The notebook went on after the failure; the SIGKILL its cell sent is not put on it.
is "its notes: killed by a signal, and the fragmented GPU failure it survived" \
	"$(sed -n 's/^death=//p; s/^gpu_failed_bytes=//p; s/^gpu_verdict=//p' "${last:-/dev/null}" | tr '\n' ' ')" \
	"killed $((128 << 20)) fragmented "
ok "its post-mortem says the kill came after the failure" \
	grep -q 'python3 was killed by SIGKILL' "$lttng_tmp/kernel-5.log"
is "one trace per kernel start" "$(ls -d "$traces"/cudatrace-* | wc -l)" $starts
is "no session is left in the daemon" "$(cli_sessions)" 0

# ---- uninstall and errors
"$cli_bin" jupyter uninstall --name cudatrace-test >"$lttng_tmp/uninstall.out" 2>&1
is "uninstall exits with 0" "$?" 0
ok "the kernelspec is gone" test ! -e "$spec"
ok "and its directory, the cells script with it" test ! -e "${spec%/kernel.json}"
cli_fails jupyter not-installed "no kernel cudatrace-test" uninstall --name cudatrace-test
cli_fails jupyter no-action "give install or uninstall"
cli_fails jupyter bad-action "give install or uninstall" frobnicate
cli_fails jupyter bad-name "a kernel name holds" install --name 'a/b'
cli_fails jupyter no-python "not found: name a Python 3" install --python /nonexistent/python3
cli_fails jupyter no-ipykernel "cannot import ipykernel" install --python /bin/true
# A real Python without ipykernel (no site directories: -S): its ImportError's
# traceback is not shown, the one line that says what to do is.
printf '#!/bin/sh\nexec "%s" -S "$@"\n' "$jupyter_python" >"$lttng_tmp/bare-python"
chmod +x "$lttng_tmp/bare-python"
cli_fails jupyter bare-python "cannot import ipykernel" install --python "$lttng_tmp/bare-python"
ok "bare-python: no traceback" cli_lacks "$lttng_tmp/bare-python.err" 'Traceback'
is "bare-python: one line" "$(wc -l <"$lttng_tmp/bare-python.err")" 1
cli_fails jupyter bad-record-option "unrecognized option" install -- --bogus
cli_fails jupyter fixed-output "use this command's --trace-dir" install -- -o /tmp/x
cli_fails jupyter stray-word "put options for cudatrace record after --" install stray
tap_done
