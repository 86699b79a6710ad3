#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record` passes the program's standard error on, unchanged,
# and keeps its last words beside the trace (stderr.log); the report
# quotes them and reads what they say (last-words.py plays the program):
#   - an uncaught Python exception: how the program ended names its type
#     and the line of the program's own code it was raised at;
#   - PyTorch's, TensorFlow's and JAX's out-of-memory messages, in their
#     formats: the report's figures are the message's, and the first
#     finding says what to do;
#   - on a terminal (record run under a pseudo-terminal of the test's),
#     the program's fd 2 is a terminal of the same size; otherwise a pipe;
#   - bytes go through unchanged: every byte value, no newline at the
#     end, more than the capture keeps (which keeps its head and tail);
#   - a program killed mid-line, and children and grandchildren that write
#     to the same stderr;
#   - --no-stderr leaves the program's stderr alone, and keeps nothing;
#   - record killed with SIGKILL: the program writes on, its lines still
#     pass and are kept.
# Ground truth: the program's own source (the line it raised at), the
# sizes it printed, the bytes it wrote, os.isatty and the terminal the
# test made.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon

words="$cli_here/last-words.py"
GIB=1073741824
MIB=1048576

# json TAG EXPR: EXPR evaluated on TAG.json's document (d).
json() {
	"$trace_python" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$lttng_tmp/$1.json" "$2"
}

report_json() {
	"$cli_bin" report --format json -o "$lttng_tmp/$1.json" "$lttng_tmp/$1"
}

# info TAG KEY: KEY's value in TAG's cudatrace.info.
info() {
	sed -n "s/^$2=//p" "$lttng_tmp/$1/cudatrace.info"
}

# line_of MARK: the line of last-words.py that holds MARK.
line_of() {
	grep -n "# $1\$" "$words" | cut -d: -f1
}

# 1. An uncaught exception, raised at a known line.
cli_record raise -o "$lttng_tmp/raise" -- "$trace_python" "$words" raise
cli_status_is "raise: the program's status comes back" 1
ok "raise: its traceback went through record's stderr" \
	grep -q '^ValueError: bad batch shape: \[3, 224\]$' "$lttng_tmp/raise.err"
ok "raise: stderr.log is kept beside the trace" test -s "$lttng_tmp/raise/stderr.log"
is "raise: stderr.log is private" "$(stat -c %a "$lttng_tmp/raise/stderr.log")" 600
raise_line=$(line_of RAISE-HERE)
is "raise: the notes say an exception" "$(info raise death)" python-exception
is "raise: its type" "$(info raise exception)" ValueError
is "raise: the line it was raised at, from the source" "$(info raise exception_site)" \
	"last-words.py:$raise_line in train_step"
ok "raise: record says how it ended" \
	grep -q "python3 died of an uncaught ValueError at last-words.py:$raise_line in train_step (exit status 1)" \
	"$lttng_tmp/raise.err"
ok "raise: cudatrace report reads it" report_json raise
is "raise: process_end" \
	"$(json raise '(d["process_end"]["cause"], d["process_end"]["exception"], d["process_end"]["exception_site"])')" \
	"('python-exception', 'ValueError', 'last-words.py:$raise_line in train_step')"
is "raise: last_words names the exception, the file, line and function" \
	"$(json raise '(lambda e: (e["type"], e["file"], e["line"], e["function"]))(d["last_words"]["exception"])')" \
	"('ValueError', '$words', $raise_line, 'train_step')"
is "raise: its last line quoted is the exception's" \
	"$(json raise 'd["last_words"]["lines"][-1]["text"]')" "ValueError: bad batch shape: [3, 224]"
is "raise: the quoted lines start with the traceback" \
	"$(json raise '[l["text"] for l in d["last_words"]["lines"]].count("Traceback (most recent call last):")')" 1
ok "raise: lines are on the trace's clock, after its first event" \
	test "$(json raise 'all(l["time_ns"] >= d["trace"]["start_ns"] for l in d["last_words"]["lines"])')" = True
is "raise: the first finding says it" \
	"$(json raise '(d["findings"][0]["kind"], d["findings"][0]["death"])')" "('process_death', 'python-exception')"
ok "raise: record's diagnosis and the report's say the same" cli_same_death raise "$lttng_tmp/raise.err"
# Without the Python probe, its stderr alone says the same.
cli_record raisenp --no-python-probe -o "$lttng_tmp/raisenp" -- "$trace_python" "$words" raise
is "raise, no probe: the notes say the same, from its stderr" \
	"$(info raisenp death) $(info raisenp exception) $(info raisenp exception_site)" \
	"python-exception ValueError last-words.py:$raise_line in train_step"

# 2. PyTorch's message in a traceback: its figures, exact in its units.
cli_record torch -o "$lttng_tmp/torch" -- "$trace_python" "$words" torch
cli_status_is "torch: the program's status comes back" 1
torch_line=$(line_of TORCH-HERE)
is "torch: the notes say PyTorch ran out" "$(info torch death)/$(info torch framework_oom)" framework-oom/pytorch
ok "torch: cudatrace report reads it" report_json torch
is "torch: the framework's figures" \
	"$(json torch '(lambda o: (o["framework"], o["device"], o["requested_bytes"], o["in_use_bytes"], o["reserved_bytes"], o["reserved_unused_bytes"], o["device_free_bytes"], o["device_total_bytes"], o["process_bytes"], o["precision"]))(d["last_words"]["out_of_memory"])')" \
	"('pytorch', 0, $((5 * GIB / 4)), $((704 * MIB)), $((704 * MIB + 5 * GIB / 2)), $((5 * GIB / 2)), $((20 * MIB)), $((4 * GIB)), $(printf '%.0f' "$(echo "3.97 * $GIB" | bc)"), 'rounded')"
is "torch: the first finding is PyTorch's, fragmented inside its pool, and the end" \
	"$(json torch '(d["findings"][0]["kind"], d["findings"][0]["verdict"], d["findings"][0]["death"])')" \
	"('framework_oom', 'fragmented', 'framework-oom')"
is "torch: its summary, with the figures and the end" \
	"$(json torch 'd["findings"][0]["summary"]')" \
	"PyTorch could not allocate 1.25 GiB on device 0: its pool had room, in pieces too small (704.00 MiB in use by PyTorch, 3.19 GiB reserved, 20.00 MiB free of 4.00 GiB); then python3 died of an uncaught torch.OutOfMemoryError at last-words.py:$torch_line in torch_oom (exit status 1)"
ok "torch: what to do" test "$(json torch '"expandable_segments:True" in d["findings"][0]["advice"]')" = True
is "torch: told once" "$(json torch 'len([f for f in d["findings"] if f["death"]])')" 1
ok "torch: record's diagnosis and the report's say the same" cli_same_death torch "$lttng_tmp/torch.err"

# 3. PyTorch's message printed alone, then exit(1).
cli_record tprint -o "$lttng_tmp/tprint" -- "$trace_python" "$words" torch-print
cli_status_is "torch-print: the program's status comes back" 1
is "torch-print: framework-oom, no exception" "$(info tprint death)/$(info tprint exception)" framework-oom/
ok "torch-print: cudatrace report reads it" report_json tprint
is "torch-print: requested, as printed" \
	"$(json tprint 'd["last_words"]["out_of_memory"]["requested_bytes"]')" $((5 * GIB / 4))
ok "torch-print: the first finding ends with the status" \
	test "$(json tprint 'd["findings"][0]["summary"].endswith("; then python3 exited with status 1")')" = True

# 4. TensorFlow: its allocator's warning and statistics, then its error.
cli_record tf -o "$lttng_tmp/tf" -- "$trace_python" "$words" tensorflow
cli_status_is "tensorflow: the program's status comes back" 1
ok "tensorflow: cudatrace report reads it" report_json tf
is "tensorflow: the tensor's size, the allocator's figures" \
	"$(json tf '(lambda o: (o["framework"], o["device"], o["requested_bytes"], o["in_use_bytes"], o["limit_bytes"], o["reserved_bytes"]))(d["last_words"]["out_of_memory"])')" \
	"('tensorflow', 0, $((8192 * 8192 * 4)), 2952790016, 3087007744, None)"
is "tensorflow: the exception's type, as Python names it" \
	"$(json tf 'd["process_end"]["exception"]')" tensorflow.python.framework.errors_impl.ResourceExhaustedError
# NVML's list at the uncaught exception has the process alone on the device:
# neither other processes nor TensorFlow's growth setting, which is for them
is "tensorflow: what to do, the process alone on the device" \
	"$(json tf 'd["findings"][0]["advice"]')" "hold less at the peak (a smaller batch, mixed precision)"

# 5. JAX.
cli_record jax -o "$lttng_tmp/jax" -- "$trace_python" "$words" jax
cli_status_is "jax: the program's status comes back" 1
ok "jax: cudatrace report reads it" report_json jax
is "jax: framework and size, exact" \
	"$(json jax '(lambda o: (o["framework"], o["requested_bytes"], o["precision"]))(d["last_words"]["out_of_memory"])')" \
	"('jax', 268435456, 'exact')"
ok "jax: what to do names XLA_PYTHON_CLIENT_MEM_FRACTION" \
	test "$(json jax '"XLA_PYTHON_CLIENT_MEM_FRACTION" in d["findings"][0]["advice"]')" = True

# 6. A pipe when record's stderr is not a terminal.
cli_record pipe -o "$lttng_tmp/pipe" -- "$trace_python" "$words" tty
cli_status_is "pipe: the program's status comes back" 0
ok "pipe: fd 2 is no terminal" grep -qx 'stderr isatty: False' "$lttng_tmp/pipe.out"
ok "pipe: its line went through" grep -q 'red.* on a terminal' "$lttng_tmp/pipe.err"
is "pipe: stderr.log says no terminal" "$(sed -n 's/^tty //p' "$lttng_tmp/pipe/stderr.log")" 0

# 7. A pseudo-terminal when record's stderr is one: record runs on a
# terminal of the test's (its controlling terminal), 111 columns by 37
# lines; once the program has said its size, the terminal becomes 93 by
# 21 (SIGWINCH to its process group), and the program says it again.
"$trace_python" - "$lttng_tmp/tty" "$cli_bin" "$trace_python" "$words" <<'EOF'
import fcntl, os, pty, select, struct, sys, termios, time
base, argv = sys.argv[1], sys.argv[2:]
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 37, 111, 0, 0))
pid = os.fork()
if pid == 0:
    os.setsid()
    out = os.open(base + ".out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    os.dup2(slave, 2)
    fcntl.ioctl(2, termios.TIOCSCTTY, 0)
    os.execv(argv[0], [argv[0], "record", "-o", base, "--", argv[1], argv[2], "tty", base])
os.close(slave)
err, resized, deadline = b"", None, time.monotonic() + 120
while time.monotonic() < deadline:
    if resized is None and os.path.exists(base + ".ready"):
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 21, 93, 0, 0))
        resized = time.monotonic()
    if resized and time.monotonic() > resized + 0.5 and not os.path.exists(base + ".gate"):
        open(base + ".gate", "w").close()
    if not select.select([master], [], [], 0.05)[0]:
        continue
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    err += chunk
_, status = os.waitpid(pid, 0)
open(base + ".err", "wb").write(err)
sys.exit(os.waitstatus_to_exitcode(status))
EOF
is "tty: record exits with the program's status" $? 0
ok "tty: fd 2 is a terminal in the program" grep -qx 'stderr isatty: True' "$lttng_tmp/tty.out"
ok "tty: of the terminal's size" grep -qx 'stderr size: 111x37' "$lttng_tmp/tty.out"
ok "tty: which follows the terminal's" grep -qx 'stderr size after: 93x21' "$lttng_tmp/tty.out"
is "tty: stderr.log says a terminal" "$(sed -n 's/^tty //p' "$lttng_tmp/tty/stderr.log")" 1
is "tty: the colours reach the terminal, newlines made CR LF once" \
	"$("$trace_python" -c 'import sys; e = open(sys.argv[1], "rb").read()
print(b"\x1b[31mred\x1b[0m on a terminal\r\n" in e, b"\r\r\n" in e)' "$lttng_tmp/tty.err")" "True False"
ok "tty: the report quotes the line without its colours" report_json tty
is "tty: quoted" "$(json tty '[l["text"] for l in d["last_words"]["lines"]][-1]')" "red on a terminal"

# 8. Bytes unchanged: every value, no newline at the end, more than is kept.
for n in 100 300000; do
	cli_record "bytes$n" -q -o "$lttng_tmp/bytes$n" -- "$trace_python" "$words" bytes $n
	"$trace_python" -c 'import sys
sys.stdout.buffer.write(bytes(i * 7 % 256 for i in range(int(sys.argv[1]))))' $n >"$lttng_tmp/bytes$n.want"
	ok "bytes $n: record's stderr holds the program's bytes, unchanged" \
		cmp -n $n "$lttng_tmp/bytes$n.want" "$lttng_tmp/bytes$n.err"
	is "bytes $n: and after them, record's own lines alone" \
		"$(tail -c +$((n + 1)) "$lttng_tmp/bytes$n.err" | grep -cv '^cudatrace record: ')" 0
	is "bytes $n: stderr.log counts them all" "$(sed -n 's/^bytes //p' "$lttng_tmp/bytes$n/stderr.log")" $n
done
is "bytes: what is kept of 300000 is its head and its tail" \
	"$(sed -n 's/^skipped //p' "$lttng_tmp/bytes300000/stderr.log")" $((300000 - 4096 - 65536))
is "bytes: the kept pieces are the first and the last bytes, then the end" "$("$trace_python" - "$lttng_tmp/bytes300000/stderr.log" "$lttng_tmp/bytes300000.want" <<'EOF'
import sys
data, want = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
pos = sum(len(l) + 1 for l in data.split(b"\n", 6)[:6])
got = []
while True:
    end = data.index(b"\n", pos)
    word = data[pos:end].split()
    pos = end + 1
    if word[0] == b"end":
        break
    if word[0] == b"gap":
        got.append(None)
        continue
    n = int(word[2])
    got.append(data[pos:pos + n])
    pos += n + 1
gap = got.index(None)
print(b"".join(got[:gap]) == want[:4096], b"".join(got[gap + 1:]) == want[-65536:], pos == len(data))
EOF
)" "True True True"

# 9. Killed mid-line: the half line is kept, and quoted.
cli_record killed -o "$lttng_tmp/killed" -- "$trace_python" "$words" killed
cli_status_is "killed: record exits with 128 + SIGKILL" 137
ok "killed: the half line went through" grep -q 'half a li' "$lttng_tmp/killed.err"
ok "killed: cudatrace report reads it" report_json killed
is "killed: quoted as its last line" "$(json killed 'd["last_words"]["lines"][-1]["text"]')" "half a li"

# 10. Children and grandchildren share the relay.
cli_record children -o "$lttng_tmp/children" -- "$trace_python" "$words" children
cli_status_is "children: the program's status comes back" 3
for who in parent child grandchild; do
	ok "children: the $who's line went through" grep -q "^$who says hello" "$lttng_tmp/children.err"
done
ok "children: cudatrace report reads it" report_json children
is "children: all four lines kept, in order" \
	"$(json children '[l["text"] for l in d["last_words"]["lines"] if " says " in l["text"]]')" \
	"['parent says hello', 'child says hello', 'grandchild says hello', 'parent says goodbye']"
is "children: no exception, unknown cause" "$(json children 'd["process_end"]["cause"]')" unknown

# 11. --no-stderr (and no probe): the program's own stderr, nothing kept.
cli_record nostderr --no-stderr --no-python-probe -o "$lttng_tmp/nostderr" -- \
	"$trace_python" "$words" raise
cli_status_is "--no-stderr: the program's status comes back" 1
ok "--no-stderr: its traceback still reaches stderr" grep -q '^ValueError: bad batch' "$lttng_tmp/nostderr.err"
ok "--no-stderr: no stderr.log" test ! -e "$lttng_tmp/nostderr/stderr.log"
is "--no-stderr: the cause is unknown, as before" "$(info nostderr death)" unknown

# A damaged stderr.log: said, and the report is made without it.
mkdir "$lttng_tmp/damaged"
cp -R "$lttng_tmp/raise/." "$lttng_tmp/damaged/"
printf 'cudatrace-stderr 1\nclock monotonic\npid 1\ntty 0\nbytes 9\nskipped 0\nchunk 1 99\nabc\n' \
	>"$lttng_tmp/damaged/stderr.log"
"$cli_bin" report --format json -o "$lttng_tmp/damaged.json" "$lttng_tmp/damaged" 2>"$lttng_tmp/damaged.err"
is "damaged stderr.log: the report is made" $? 0
ok "damaged stderr.log: and says why its last words are missing" \
	grep -q "warning: $lttng_tmp/damaged/stderr.log is damaged or unreadable" "$lttng_tmp/damaged.err"
is "damaged stderr.log: no last_words section; record's judgement stays" \
	"$(json damaged '("last_words" in d, d["process_end"]["cause"])')" "(False, 'python-exception')"

# 12. Record killed with SIGKILL while the program runs: the relay, a
# process of its own, goes on; the program writes on, unharmed, and its
# last words are kept all the same. The next command that lists traces
# closes the session and removes the Python probe's directory, made
# where the test sees it.
mkdir "$lttng_tmp/orphan-tmp"
TMPDIR="$lttng_tmp/orphan-tmp" "$cli_bin" record -o "$lttng_tmp/orphan" -- "$trace_python" -c 'import os, sys, time
sys.stderr.write("before\n")
sys.stderr.flush()
open(sys.argv[1] + ".ready", "w").close()
while not os.path.exists(sys.argv[1] + ".gate"):
    time.sleep(0.05)
sys.stderr.write("after its recorder died\n")
sys.stderr.flush()
print("done", flush=True)' "$lttng_tmp/orphan" >"$lttng_tmp/orphan.out" 2>"$lttng_tmp/orphan.err" &
orphan_rec=$!
tries=0
while [ ! -e "$lttng_tmp/orphan.ready" ] && [ $tries -lt 600 ]; do
	sleep 0.1
	tries=$((tries + 1))
done
orphan_prog=$(cli_children $orphan_rec)
ok "orphan: the program runs, record's one child" test -n "$orphan_prog" -a -e "/proc/$orphan_prog"
kill -KILL $orphan_rec
wait $orphan_rec 2>/dev/null
: >"$lttng_tmp/orphan.gate"
tries=0
while [ -e "/proc/$orphan_prog" ] && [ $tries -lt 600 ]; do
	sleep 0.1
	tries=$((tries + 1))
done
tries=0
while ! grep -q '^end$' "$lttng_tmp/orphan/stderr.log" 2>/dev/null && [ $tries -lt 100 ]; do
	sleep 0.1
	tries=$((tries + 1))
done
ok "orphan: the program wrote on and ended as it would have" grep -qx done "$lttng_tmp/orphan.out"
ok "orphan: its line after record died went through" grep -q '^after its recorder died$' "$lttng_tmp/orphan.err"
ok "orphan: and was kept" grep -q '^after its recorder died$' "$lttng_tmp/orphan/stderr.log"
is "orphan: under the program's pid" "$(sed -n 's/^pid //p' "$lttng_tmp/orphan/stderr.log")" "$orphan_prog"
"$cli_bin" list "$lttng_tmp/orphan" >"$lttng_tmp/orphan-list.out" 2>"$lttng_tmp/orphan-list.err"
ok "orphan: the next list closes its session" \
	grep -q "closed the session cudatrace-.* left by a cudatrace record that died" "$lttng_tmp/orphan-list.err"
is "orphan: and removes its Python probe" "$(ls -A "$lttng_tmp/orphan-tmp")" ""

tap_done
