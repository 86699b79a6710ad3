#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""damage.py CUDATRACE TRACE WORK [SEED] - `cudatrace report`, both
exports and `cudatrace list` on damaged copies of the CTF trace directory
TRACE (a directory holding a metadata file), made in WORK; prints TAP,
four test points per copy.

The copies: each stream, metadata and index file cut at many places
(inside and at the edges of packet headers, packets and entries), bits
flipped and ranges zeroed in the packet headers and contexts, in the
metadata's packet headers and in the index entries (chosen with SEED).
Each report must end within the time limit with exit status 0 (a
report, the damage said) or 2 (a message), no sanitizer report, no
internal error and no message of babeltrace2's own (addresses, states,
source files); a copy whose damage costs events must say which file is
damaged. Each export (Perfetto, then CTF) must end in time with exit
status 0 or 2 under the same rules for its messages, and leave a file
(Perfetto) or a trace directory (CTF) when it exits 0. Each list must end
in time with exit status 0 and a line for the copy, under the same rules
for its messages.
"""
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import time

TIMEOUT = 60  # seconds, for a sanitizer build on a loaded machine
METADATA_MAGIC = 0x75D11D57
CTF_MAGIC = 0xC1FC1FC1
INTERNALS = re.compile(r"msg-it|0x[0-9a-f]{6,}|[a-z-]+\.c:[0-9]+|state=|addr=|\bbt_")
CRASHES = re.compile(r"AddressSanitizer|LeakSanitizer|runtime error|internal error|"
                     r"Assertion|Aborting")

n = 0


def result(ok, name, why=""):
    global n
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {name}", flush=True)
    if not ok:
        for line in why.splitlines()[:6]:
            print(f"#   {line}")


def packets(path, magic, size_at, big=False):
    """Offsets and sizes of the packets of a stream or metadata file."""
    data = open(path, "rb").read()
    fmt = ">" if big else "<"
    out, at = [], 0
    while at + size_at[0] + size_at[1] <= len(data):
        if struct.unpack_from(fmt + "I", data, at)[0] != magic:
            break
        size = struct.unpack_from(fmt + ("I" if size_at[1] == 4 else "Q"), data,
                                  at + size_at[0])[0] // 8
        if size <= 0:
            break
        out.append((at, size))
        at += size
    return out


def cut_points(size, edges):
    """Where to cut a file of SIZE bytes: around each edge, and spread over it."""
    points = {0, 1, size - 1, size // 2}
    for e in edges:
        points.update({e - 1, e, e + 1})
    return sorted(p for p in points if 0 <= p < size)


class Trace:
    def __init__(self, path):
        self.path = path
        self.streams = sorted(f for f in os.listdir(path)
                              if f != "metadata" and not f.startswith(".")
                              and os.path.isfile(os.path.join(path, f)))
        self.indexes = sorted(os.listdir(os.path.join(path, "index"))) \
            if os.path.isdir(os.path.join(path, "index")) else []
        meta = open(os.path.join(path, "metadata"), "rb").read(4)
        self.packetized = len(meta) == 4 and struct.unpack("<I", meta)[0] == METADATA_MAGIC


def variants(trace, rng):
    """(name, file relative to the trace, damage function, what the message names)."""
    out = []
    if trace.packetized:
        mp = packets(os.path.join(trace.path, "metadata"), METADATA_MAGIC, (28, 4))
        edges = [at for at, _ in mp] + [at + 37 for at, _ in mp]
    else:
        edges = [64, 512]
    size = os.path.getsize(os.path.join(trace.path, "metadata"))
    for at in cut_points(size, edges)[:14]:
        out.append((f"metadata cut at {at}", "metadata", ("cut", at), "metadata"))
    for stream in trace.streams:
        path = os.path.join(trace.path, stream)
        size = os.path.getsize(path)
        sp = packets(path, CTF_MAGIC, (56, 8)) or packets(path, CTF_MAGIC, (48, 8))
        edges = [at for at, _ in sp] + [at + 32 for at, _ in sp] + [at + 64 for at, _ in sp]
        for at in cut_points(size, edges)[:16]:
            # an empty stream file is no damage: LTTng leaves one per CPU that had no event
            out.append((f"{stream} cut at {at}", stream, ("cut", at),
                        "stream file|index" if at else None))
        for k in range(6):
            at = rng.choice([a for a, _ in sp] or [0]) + rng.randrange(96)
            out.append((f"{stream} bits flipped near {at}", stream, ("flip", at, 96, 4), None))
        for k in range(3):
            at = rng.choice([a for a, _ in sp] or [0]) + rng.randrange(64)
            out.append((f"{stream} zeroed at {at}", stream, ("zero", at, 32), None))
        out.append((f"{stream} zeroed whole", stream, ("zero", 0, size), None))
    for idx in trace.indexes:
        path = os.path.join("index", idx)
        size = os.path.getsize(os.path.join(trace.path, path))
        for at in cut_points(size, [16, 16 + 56, 16 + 72])[:8]:
            out.append((f"{path} cut at {at}", path, ("cut", at), "index"))
        for k in range(4):
            out.append((f"{path} bits flipped", path, ("flip", 0, size, 3), None))
        out.append((f"{path} entry size zeroed", path, ("zero", 12, 4), "index"))
    mp_size = os.path.getsize(os.path.join(trace.path, "metadata"))
    for k in range(4):
        out.append(("metadata bits flipped", "metadata",
                    ("flip", 0, min(mp_size, 4096), 3), None))
    if trace.packetized:
        out.append(("metadata header zeroed", "metadata", ("zero", 0, 37), "metadata"))
        out.append(("metadata packet sizes overwritten", "metadata",
                    ("put32", 28, 0xFFFFFFF8), "metadata"))
    return out


def damage(path, how, rng):
    data = bytearray(open(path, "rb").read())
    kind = how[0]
    if kind == "cut":
        data = data[:how[1]]
    elif kind == "zero":
        data[how[1]:how[1] + how[2]] = bytes(len(data[how[1]:how[1] + how[2]]))
    elif kind == "flip":
        for _ in range(how[3]):
            if not data:
                break
            at = min(len(data) - 1, how[1] + rng.randrange(max(1, how[2])))
            data[at] ^= 1 << rng.randrange(8)
    elif kind == "put32" and len(data) >= how[1] + 4:
        data[how[1]:how[1] + 4] = struct.pack("<I", how[2])
    open(path, "wb").write(bytes(data))


def cudatrace(cmd, args):
    """`cudatrace ARGS...`: its result and how long it took, or None past the time limit."""
    env = dict(os.environ)
    # babeltrace2 2.0 leaks on its own error paths: memory errors are checked, not leaks
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    start = time.monotonic()
    try:
        r = subprocess.run([cmd] + args, capture_output=True, timeout=TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        return None, TIMEOUT
    return r, time.monotonic() - start


def message_problems(err):
    """What a command's standard error must not hold."""
    problems = []
    if CRASHES.search(err):
        problems.append("a crash or sanitizer report")
    if INTERNALS.search(err):
        problems.append("a message of babeltrace2's own")
    return problems


def run_list(cmd, work, name):
    r, took = cudatrace(cmd, ["list", work])
    if r is None:
        result(False, f"{name}: list ends within {TIMEOUT} s")
        return
    err = r.stderr.decode("utf-8", "replace")
    problems = message_problems(err)
    if r.returncode != 0:
        problems.append(f"exit status {r.returncode}")
    if not any(line.startswith("copy ") for line in r.stdout.decode("utf-8", "replace").split("\n")):
        problems.append("no line for the copy")
    result(not problems, f"{name}: list exits {r.returncode} in {took:.1f} s",
           "\n".join(problems + [err]))


def run_exports(cmd, copy, work, name):
    """Both exports of COPY: one test point for the two."""
    problems, statuses, took = [], [], 0.0
    for fmt in ("perfetto", "ctf"):
        out = os.path.join(work, "export." + fmt)
        if os.path.isdir(out):
            shutil.rmtree(out)
        elif os.path.exists(out):
            os.unlink(out)
        r, t = cudatrace(cmd, ["export", "--format=" + fmt, "-o", out, copy])
        took += t
        if r is None:
            problems.append(f"{fmt}: did not end within {TIMEOUT} s")
            continue
        err = r.stderr.decode("utf-8", "replace")
        statuses.append(f"{fmt} {r.returncode}")
        problems += [f"{fmt}: {p}" for p in message_problems(err)]
        if r.returncode not in (0, 2):
            problems.append(f"{fmt}: exit status {r.returncode}")
        if r.returncode == 0 and not (os.path.isfile(out) if fmt == "perfetto"
                                      else os.path.isfile(os.path.join(out, "metadata"))):
            problems.append(f"{fmt}: exit 0 without its output")
        if problems:
            problems.append(err)
    result(not problems, f"{name}: exports exit {', '.join(statuses)} in {took:.1f} s",
           "\n".join(problems))


def run(cmd, trace, work, name, target, how, names, rng):
    copy = os.path.join(work, "copy")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(trace.path, copy)
    damage(os.path.join(copy, target), how, rng)
    r, took = cudatrace(cmd, ["report", "--format=json", copy])
    if r is None:
        result(False, f"{name}: ends within {TIMEOUT} s")
    else:
        check_report(r, took, name, names)
    run_exports(cmd, copy, work, name)
    run_list(cmd, work, name)


def check_report(r, took, name, names):
    err = r.stderr.decode("utf-8", "replace")
    problems = message_problems(err)
    if r.returncode not in (0, 2):
        problems.append(f"exit status {r.returncode}")
    if r.returncode == 0:
        try:
            import json
            json.loads(r.stdout.decode("utf-8"))
        except ValueError as e:
            problems.append(f"a report that does not parse: {e}")
    if names and (r.returncode == 2 or err.strip()) and not re.search(names, err):
        problems.append(f"a message that does not name the damaged file ({names})")
    result(not problems, f"{name}: exit {r.returncode} in {took:.1f} s", "\n".join(problems + [err]))


def main():
    cmd, trace_dir, work = sys.argv[1:4]
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    trace = Trace(trace_dir)
    os.makedirs(work, exist_ok=True)
    for name, target, how, names in variants(trace, rng):
        run(cmd, trace, work, name, target, how, names, rng)
    print(f"1..{n}")


if __name__ == "__main__":
    main()
