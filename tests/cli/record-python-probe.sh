#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The Python probe `cudatrace record` puts in the traced program's Python
# interpreters (doc/events.md, "The Python probe"), on programs whose
# answers are known from their source:
#
# 1. A script that dies of an uncaught exception raised in its own code:
#    the report's framework section names its type, message, line and
#    function, and how the program ended says it died of it there (record
#    and report alike, cause python-exception); one raised inside Python's
#    library (json), or in a compiled extension (a frame Cython names by a
#    path that is no file), names the script's line that called it, and
#    where it was raised. The traceback still reaches the program's
#    stderr, and its exit status is Python's.
# 2. The probe changes nothing the program sees: a sitecustomize of the
#    user's on PYTHONPATH still runs and is the one `import sitecustomize`
#    gives; the probe's directory is not on sys.path and is gone after the
#    run; a program that imports no framework runs no probe thread.
# 3. SystemExit is no death by exception; --no-python-probe and
#    CUDATRACE_PYTHON_PROBE=0 record nothing and leave PYTHONPATH alone.
# 4. A framework (a stand-in `torch` package with PyTorch's API, whose
#    figures the test sets): its import is seen, its figures are recorded
#    as it gives them, only once it says CUDA is initialised, its
#    out-of-memory observer is attached, and the other processes NVML
#    lists on the device then are named; the Perfetto export shows its
#    figures as counters beside the driver's, and its error as an instant
#    (decoded with Perfetto's protos, check-perfetto.py).
# 5. Memory the program still held when its code ended, which Python
#    frees as the interpreter tears its objects down: counted with the
#    leaks (exit_freed_count), and on the first page; the program's own
#    atexit handler's frees are the program's; a script that frees it
#    all itself has no leak. The Perfetto export marks when Python began
#    to exit.
# 6. A CUDA call that fails, and the exception the program raises for
#    it: how it ended names the call, its error and the script's line
#    that made it, says the exception's message names that error, and
#    what to do begins there (process_end.failed_call, the first finding).

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

. "$cli_here/../lib/perfetto-venv.sh"

cli_setup "$@"
perfetto_python "${TESTS_BUILDDIR:-$trace_builddir/tests}"
cli_with_daemon
py=$trace_python
dir=$lttng_tmp/progs
mkdir -p "$dir/user-site" "$dir/fake/torch"

# WHAT of the report of trace TAG (its JSON in TAG.json).
framework() {
	"$cli_bin" report --format json -o "$lttng_tmp/$1.json" "$lttng_tmp/$1" \
		2>"$lttng_tmp/$1.report-err" || echo "report failed"
	"$py" -c 'import json, os, sys
report = json.load(open(sys.argv[1]))
fw, what = report["framework"], sys.argv[2]
if what == "exception":
    for x in fw["exceptions"]:
        print("|".join(str(v) for v in (x["type"], x["message"], os.path.basename(x["file"]),
                                        x["line"], x["function"],
                                        os.path.basename(x["raised_file"]), x["raised_line"])))
elif what == "devices":
    for d in fw["devices"]:
        print(d["framework"], d["version"], d["device"], d["in_use_bytes"], d["reserved_bytes"],
              d["peak_in_use_bytes"], d["peak_reserved_bytes"], d["ooms"])
elif what == "loaded":
    print(" ".join("%s:%s" % (l["framework"], l["version"]) for l in fw["loaded"]))
elif what == "oom":
    for d in fw["devices"]:
        for o in d["oom_errors"]:
            print(o["requested_bytes"], o["limit_bytes"], o["device_free_bytes"],
                  o["in_use_bytes"], o["reserved_bytes"])
elif what == "findings":
    print(" ".join("%s:%s" % (f["kind"], f["verdict"]) for f in report["findings"]))' \
		"$lttng_tmp/$1.json" "$2"
}
line_of() { grep -n "$2" "$1" | head -n 1 | cut -d: -f1; }

# 1. Uncaught exceptions.
cat >"$dir/dies.py" <<'PY'
import json
import sys


def load(name):
    table = {}
    return table[name]  # the KeyError


def main():
    if sys.argv[1] == "key":
        load("weights")
    if sys.argv[1] == "compiled":
        # a compiled extension's frame, named as Cython names it: a path that is no file
        code = compile("def check():\n    raise RuntimeError('CUDA_ERROR_INVALID_VALUE')\n",
                       "pkg/_utils.pyx", "exec")
        scope = {}
        exec(code, scope)
        scope["check"]()  # raised in compiled code
    json.loads("{")  # raised inside json


main()
PY
cli_record key -o "$lttng_tmp/key" -- "$py" "$dir/dies.py" key
cli_status_is "uncaught: record exits with Python's status" 1
is "uncaught: its type, message, line and function, raised where it is" \
	"$(framework key exception)" \
	"KeyError|'weights'|dies.py|$(line_of "$dir/dies.py" 'the KeyError')|load|dies.py|$(line_of "$dir/dies.py" 'the KeyError')"
ok "uncaught: the traceback still reaches stderr" grep -qx "KeyError: 'weights'" "$lttng_tmp/key.err"
key_line=$(line_of "$dir/dies.py" 'the KeyError')
# (record's diagnosis wraps its lines)
ok "uncaught: record says the program died of it, at its line" \
	sh -c 'tr -s " \n" "  " <"$1" | grep -qF "$2"' - "$lttng_tmp/key.err" \
	"died of an uncaught KeyError at dies.py:$key_line in load (exit status 1)"
is "uncaught: the report's process_end says so too" \
	"$("$py" -c 'import json, sys
pe = json.load(open(sys.argv[1]))["process_end"]
print(pe["cause"], pe["exception"], pe["exception_site"], pe["exception_message"])' "$lttng_tmp/key.json")" \
	"python-exception KeyError dies.py:$key_line in load 'weights'"
ok "uncaught: and its first finding, in the same words as record" cli_same_death key "$lttng_tmp/key.err"
cli_record json -o "$lttng_tmp/json" -- "$py" "$dir/dies.py" json
cli_status_is "raised in Python's library: record exits with Python's status" 1
framework json exception >"$lttng_tmp/json.exception"
is "raised in Python's library: the script's line that called it" \
	"$(cut -d'|' -f1,3-5 "$lttng_tmp/json.exception")" \
	"json.decoder.JSONDecodeError|dies.py|$(line_of "$dir/dies.py" 'raised inside json')|main"
ok "raised in Python's library: where it was raised is json's" \
	grep -q '|decoder.py|[1-9][0-9]*$' "$lttng_tmp/json.exception"
cli_record compiled -o "$lttng_tmp/compiled" -- "$py" "$dir/dies.py" compiled
cli_status_is "raised in a compiled extension: record exits with Python's status" 1
is "raised in a compiled extension: the script's line that called it, raised in the extension" \
	"$(framework compiled exception)" \
	"RuntimeError|CUDA_ERROR_INVALID_VALUE|dies.py|$(line_of "$dir/dies.py" 'raised in compiled code')|main|_utils.pyx|2"

# 2. What the program sees.
cat >"$dir/user-site/sitecustomize.py" <<'PY'
print("user sitecustomize ran")
PY
cat >"$dir/sees.py" <<'PY'
import os
import sys
import threading

import sitecustomize

print("sitecustomize", sitecustomize.__file__)
probe = os.environ["PYTHONPATH"].split(":")[0]
print("probe dir", probe)
print("on sys.path", probe in sys.path or os.path.abspath(probe) in sys.path)
print("threads", " ".join(sorted(t.name for t in threading.enumerate())))
PY
PYTHONPATH=$dir/user-site cli_record sees -o "$lttng_tmp/sees" -- "$py" "$dir/sees.py"
cli_status_is "sees: record exits with the program's status" 0
ok "the user's sitecustomize still runs" grep -qx "user sitecustomize ran" "$lttng_tmp/sees.out"
is "... and is the one the program imports" \
	"$(sed -n 's/^sitecustomize //p' "$lttng_tmp/sees.out")" "$dir/user-site/sitecustomize.py"
is "the probe's directory is not on sys.path" \
	"$(sed -n 's/^on sys.path //p' "$lttng_tmp/sees.out")" False
probe_dir=$(sed -n 's/^probe dir //p' "$lttng_tmp/sees.out")
ok "the probe's directory is gone after the run" test -n "$probe_dir" -a ! -e "$probe_dir"
is "without a framework, no probe thread runs" \
	"$(sed -n 's/^threads //p' "$lttng_tmp/sees.out")" MainThread

# 3. No death by exception; the probe turned off.
cli_record exit3 -o "$lttng_tmp/exit3" -- "$py" -c 'raise SystemExit(3)'
cli_status_is "SystemExit(3): record exits with 3" 3
is "SystemExit is no uncaught exception" "$(framework exit3 exception)" ""
PYTHONPATH=$dir/user-site cli_record off -o "$lttng_tmp/off" --no-python-probe -- \
	"$py" -c 'import os; print("PYTHONPATH", os.environ["PYTHONPATH"]); {}[1]'
is "--no-python-probe: PYTHONPATH is the user's" \
	"$(sed -n 's/^PYTHONPATH //p' "$lttng_tmp/off.out")" "$dir/user-site"
is "--no-python-probe: nothing recorded" "$(framework off exception)" ""
CUDATRACE_PYTHON_PROBE=0 cli_record env0 -o "$lttng_tmp/env0" -- "$py" -c '{}[1]'
is "CUDATRACE_PYTHON_PROBE=0: nothing recorded" "$(framework env0 exception)" ""

# 4. A stand-in for PyTorch: the API the probe uses, with set figures.
cat >"$dir/fake/torch/__init__.py" <<'PY'
# A stand-in for PyTorch's API as the probe uses it (torch.cuda, torch._C).
import types

__version__ = "9.9.fake"
_observers = []
_queued = []
_stats = {}
_initialized = [False]


def _lazy_call(fn):
    if _initialized[0]:
        fn()
    else:
        _queued.append(fn)


def init(allocated, reserved):
    _initialized[0] = True
    set_stats(allocated, reserved)
    for fn in _queued:
        fn()


def set_stats(allocated, reserved):
    _stats["allocated_bytes.all.current"] = allocated
    _stats["reserved_bytes.all.current"] = reserved
    _stats["allocated_bytes.all.peak"] = max(allocated, _stats.get("allocated_bytes.all.peak", 0))
    _stats["reserved_bytes.all.peak"] = max(reserved, _stats.get("reserved_bytes.all.peak", 0))


def oom(requested, limit, free):
    for fn in _observers:
        fn(0, requested, limit, free)


cuda = types.SimpleNamespace(
    _lazy_call=_lazy_call,
    is_initialized=lambda: _initialized[0],
    device_count=lambda: 1,
    memory_stats=lambda device: dict(_stats),
)
_C = types.SimpleNamespace(_cuda_attach_out_of_memory_observer=_observers.append)
PY
cat >"$dir/fake-train.py" <<'PY'
import sys
import time

import torch

MIB = 1 << 20
time.sleep(0.3)  # not initialised: nothing to read
torch.init(4 * MIB, 20 * MIB)
time.sleep(0.3)
torch.set_stats(12 * MIB, 20 * MIB)
time.sleep(0.3)
torch.set_stats(2 * MIB, 20 * MIB)
torch.oom(16 * MIB, 256 * MIB, 8 * MIB)
sys.exit(0)
PY
# The other holder's pid is one no process can have (Linux keeps every pid
# below PID_MAX_LIMIT, 4194304): a live one would be listed with its name
PYTHONPATH=$dir/fake CUDATRACE_PYTHON_PERIOD_MS=50 CUDASIM_OTHER_PROCESSES=0:4194304:1073741824 \
	cli_record fake -o "$lttng_tmp/fake" -- "$py" "$dir/fake-train.py"
cli_status_is "a framework: record exits with the program's status" 0
is "a framework: its import is seen, with its version" "$(framework fake loaded)" \
	"pytorch:9.9.fake"
is "a framework: its figures as it gives them, its peaks, its error" \
	"$(framework fake devices)" "pytorch 9.9.fake 0 2097152 20971520 12582912 20971520 1"
is "a framework: its out-of-memory error, with its figures then" "$(framework fake oom)" \
	"16777216 268435456 8388608 2097152 20971520"
is "a framework: the error is on the first page, the pool fragmented" \
	"$(framework fake findings)" "framework_oom:fragmented"
ok "a framework: the error names who else held the device, as NVML listed it" \
	"$py" -c 'import json, sys
f = json.load(open(sys.argv[1]))["findings"][0]
sys.exit("NVML listed on the device pid 4194304 with 1.00 GiB" not in f["explanation"])' \
	"$lttng_tmp/fake.json"
"$cli_bin" export --format perfetto -o "$lttng_tmp/fake.pftrace" "$lttng_tmp/fake" \
	2>"$lttng_tmp/fake.export-err"
is "a framework: the Perfetto export is written" "$?" 0
cat >"$lttng_tmp/fake.expected" <<'JSON'
{"counters": {"GPU 0 PyTorch in use (its own count)": [4194304, 12582912, 2097152],
              "GPU 0 PyTorch reserved (its pool)": [20971520]},
 "instants": ["PyTorch out of memory: 16777216 bytes requested on GPU 0"]}
JSON
"$perfetto_python" "$trace_srcdir/tests/analyzers/check-perfetto.py" --counters \
	"$lttng_tmp/fake.pftrace" "$lttng_tmp/fake.expected" >"$lttng_tmp/fake.tap" 2>&1
tap_relay "a framework: Perfetto" "$lttng_tmp/fake.tap"

# 5. Memory held until the interpreter exits: objects still referenced
# when the script ends free their device memory only as Python tears them
# down; the script's own atexit handler runs before the probe's.
cat >"$dir/held.py" <<'PY'
import atexit
import sys

sys.path.insert(0, sys.argv[1])
from gpu_ctypes import Runtime  # noqa: E402

MIB = 1 << 20
rt = Runtime()


class Buffer:
    def __init__(self, size):
        self.ptr = rt.malloc(size)

    def __del__(self):
        rt.free(self.ptr)


kept = [Buffer(8 * MIB) for _ in range(3)]  # held until exit
scratch = Buffer(4 * MIB)
del scratch  # freed by the program
cleaned = [Buffer(2 * MIB)]
atexit.register(cleaned.clear)  # freed by the program's own handler
if sys.argv[2] == "tidy":
    kept.clear()
PY
for mode in held tidy; do
	cli_record "$mode" -o "$lttng_tmp/$mode" -- "$py" "$dir/held.py" \
		"$trace_srcdir/examples/python" "$mode"
	cli_status_is "$mode: record exits with the program's status" 0
	"$cli_bin" report --format json -o "$lttng_tmp/$mode.json" "$lttng_tmp/$mode" \
		2>"$lttng_tmp/$mode.report-err"
done
is "held: the program's five allocations were all freed (the ledger)" \
	"$(grep -c ' op=alloc ' "$lttng_tmp/held.ledger") $(grep -c ' op=free ' "$lttng_tmp/held.ledger")" \
	"5 5"
leaks() {
	"$py" -c 'import json, sys
r = json.load(open(sys.argv[1]))
d = r["memory"]["devices"][0]
print(d["leak_count"], d["leaked_bytes"], d["exit_freed_count"], d["exit_freed_bytes"],
      d["live_at_end_bytes"], " ".join(f["kind"] for f in r["findings"]))' "$lttng_tmp/$1.json"
}
is "held: what Python freed as it exited is held to the end, the program's frees are not" \
	"$(leaks held)" "3 25165824 3 25165824 0 leak"
ok "held: the first page says Python freed them as it exited" \
	sh -c 'tr -s " \n" "  " <"$1" | grep -qF "Python freed 3 of them only as the interpreter exited"' \
	- "$lttng_tmp/held.err"
is "tidy: the program freed everything: nothing held, no finding" "$(leaks tidy)" "0 0 0 0 0 "
"$cli_bin" export --format perfetto -o "$lttng_tmp/held.pftrace" "$lttng_tmp/held" \
	2>"$lttng_tmp/held.export-err"
echo '{"instants": ["Python exiting"]}' >"$lttng_tmp/held.expected"
"$perfetto_python" "$trace_srcdir/tests/analyzers/check-perfetto.py" --counters \
	"$lttng_tmp/held.pftrace" "$lttng_tmp/held.expected" >"$lttng_tmp/held.tap" 2>&1
tap_relay "held: Perfetto" "$lttng_tmp/held.tap"

# 6. A CUDA call that fails, then the exception raised for it.
cat >"$dir/fails.py" <<'PY'
import ctypes
import sys

sys.path.insert(0, sys.argv[1])
from gpu_ctypes import Runtime  # noqa: E402

rt = Runtime()
ptr = rt.malloc(1 << 20)
code = rt.lib.cudaMemcpy(ptr, None, 1 << 20, 1)  # the failing copy
if code:
    raise RuntimeError("copy failed: " + rt.lib.cudaGetErrorName(code).decode())
PY
cli_record fails -o "$lttng_tmp/fails" -- "$py" "$dir/fails.py" "$trace_srcdir/examples/python"
cli_status_is "failed call: record exits with Python's status" 1
"$cli_bin" report --format json -o "$lttng_tmp/fails.json" "$lttng_tmp/fails" \
	2>"$lttng_tmp/fails.report-err"
"$py" -c 'import json, sys
r = json.load(open(sys.argv[1]))
c = r["process_end"]["failed_call"] or {}
print(c.get("api"), c.get("error"), c.get("code"), c.get("site"))
print(r["findings"][0]["explanation"])
print(r["findings"][0]["advice"])' "$lttng_tmp/fails.json" >"$lttng_tmp/fails.facts"
copy_line=$(line_of "$dir/fails.py" 'the failing copy')
is "failed call: process_end names the call, its error and the script's line" \
	"$(sed -n 1p "$lttng_tmp/fails.facts")" \
	"cudaMemcpy cudaErrorInvalidValue 1 fails.py:$copy_line in <module>"
ok "failed call: how it ended says the exception's message names that error" \
	grep -qF "its message names the error of the last CUDA call that failed: cudaMemcpy returned cudaErrorInvalidValue at fails.py:$copy_line in <module>" \
	"$lttng_tmp/fails.facts"
ok "failed call: what to do begins at its line" \
	grep -q "^start at fails.py:$copy_line in <module>, where cudaMemcpy failed" "$lttng_tmp/fails.facts"
tap_done
