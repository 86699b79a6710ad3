# SPDX-License-Identifier: MIT
"""simcheck - what the test checkers share: reading the simulator's ledger
(tests/cudasim/README.md, "The ledger") and the key=value logs of
libtestinject, TAP output, and matching the "# expect" lines that test
programs print against the ledger.

Python 3 standard library only.
"""

import operator
import os
import re
import sys


class Tap:
    """TAP output with the plan printed last (see tests/lib/tap.sh)."""

    def __init__(self, out=sys.stdout):
        self.out = out
        self.count = 0
        self.failed = 0

    def ok(self, cond, desc, *details):
        self.count += 1
        if not cond:
            self.failed += 1
        self.out.write("%sok %d - %s\n" % ("" if cond else "not ", self.count, desc))
        if not cond:
            for line in details:
                self.diag("  " + str(line))
        return cond

    def diag(self, text):
        for line in str(text).splitlines() or [""]:
            self.out.write("# %s\n" % line)

    def done(self):
        self.out.write("1..%d\n" % self.count)
        self.out.flush()
        return 0


def parse_kv(line):
    """'a=1 b=x' -> {'a': '1', 'b': 'x'}; None for a line that is not one."""
    fields = {}
    for word in line.split():
        key, sep, value = word.partition("=")
        if not sep or not key:
            return None
        fields[key] = value
    return fields or None


def read_kv_file(path):
    """Every key=value line of a file, with its line number under '_line'.
    Lines that do not parse come back as {'_bad': text}."""
    entries = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line.strip():
                    continue
                fields = parse_kv(line)
                if fields is None:
                    entries.append({"_bad": line, "_line": number})
                else:
                    fields["_line"] = number
                    entries.append(fields)
    except FileNotFoundError:
        return None
    return entries


def to_int(value):
    """Decimal or 0x hex -> int; None when it is neither."""
    try:
        return int(value, 0)
    except (TypeError, ValueError):
        try:
            return int(value, 10)
        except (TypeError, ValueError):
            return None


def same_value(got, want):
    """Numbers compare by value (0x10 == 16), everything else as text."""
    a, b = to_int(got), to_int(want)
    if a is not None and b is not None:
        return a == b
    return got == want


def read_program_output(path):
    """The '# expect ...' lines and '# name=value' facts of a program's
    output: (expectations, facts)."""
    expects, facts = [], {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# expect "):
                expects.append(Expectation(line[len("# expect "):]))
            elif line.startswith("# fact "):
                fields = parse_kv(line[len("# fact "):]) or {}
                facts.update(fields)
    return expects, facts


_OPS = [(">=", operator.ge), ("<=", operator.le), ("!=", operator.ne),
        (">", operator.gt), ("<", operator.lt), ("=", operator.eq)]


class Expectation:
    """One '# expect' line: key=value (equal), key>=N, key<N, ... ,
    key=$var (bound on first use, equal afterwards), and @name=value
    annotations that the ledger does not carry (e.g. @duration_ns)."""

    def __init__(self, text):
        self.text = text
        self.terms = []
        self.notes = {}
        for word in text.split():
            if word.startswith("@"):
                key, _, value = word[1:].partition("=")
                self.notes[key] = value
                continue
            for symbol, fn in _OPS:
                key, sep, value = word.partition(symbol)
                if sep and key and re.match(r"^[A-Za-z_]+$", key):
                    self.terms.append((key, symbol, fn, value))
                    break
            else:
                raise ValueError("bad expectation term %r in %r" % (word, text))
        self.op = next((v for k, s, _, v in self.terms if k == "op" and s == "="), None)

    def matches(self, entry, bindings):
        """True when entry satisfies every term; new $variables are added to
        a copy of bindings, returned as the second value."""
        new = dict(bindings)
        for key, symbol, fn, value in self.terms:
            if key not in entry:
                return False, bindings
            got = entry[key]
            if value.startswith("$"):
                if value in new:
                    value = new[value]
                else:
                    new[value] = got
                    continue
            if symbol == "=":
                if not same_value(got, value):
                    return False, bindings
                continue
            a, b = to_int(got), to_int(value)
            if a is None or b is None or not fn(a, b):
                return False, bindings
        return True, new


def ledger_for_pid(entries, pid):
    """The lines of one process (all of them when pid is None)."""
    if pid is None:
        return [e for e in entries if "_bad" not in e]
    return [e for e in entries if e.get("pid") == str(pid)]


LEDGER_OPS = ("alloc", "free", "alloc_failed", "memcpy", "memset", "launch", "prefetch")

REQUIRED_KEYS = {
    "alloc": "kind dev addr size reserved api corr",
    "free": "kind dev addr size api corr",
    "alloc_failed": "kind dev size error free total largest_free api corr",
    "memcpy": "dir src dst bytes host sync stream dev src_dev dst_dev api corr gpu_start gpu_end",
    "memset": "dev dst bytes value elem sync stream api corr gpu_start gpu_end",
    "launch": "name dev grid block shmem stream api corr gpu_start gpu_end",
    "prefetch": "dev addr bytes dst htod dtoh dtod stream api corr gpu_start gpu_end",
    "error": "api result",
    "ctx_create": "ctx dev primary",
    "ctx_destroy": "ctx dev primary",
    "stream_create": "stream dev flags",
    "stream_destroy": "stream dev flags",
    "module_load": "module kernels archs chosen jit",
    "module_load_failed": "archs device driver result api",
    "runtime_init": "runtime driver required result api",
    "sync": "what stream gpu_end",
    "pool_trim": "dev bytes",
    "pool_release": "dev bytes",
    "cupti_drop": "count",
}


def check_ledger_format(tap, entries, raw):
    """Every line parses, carries the common prefix and its op's keys, and
    seq counts 1, 2, 3... in file order within each process."""
    bad = [e["_bad"] for e in raw if "_bad" in e]
    tap.ok(not bad, "every ledger line is key=value pairs", *bad[:5])
    missing = []
    for e in entries:
        keys = "seq t pid tid op " + REQUIRED_KEYS.get(e.get("op"), "")
        absent = [k for k in keys.split() if k not in e]
        if absent or e.get("op") not in REQUIRED_KEYS:
            missing.append("line %d (op=%s): missing %s" %
                           (e["_line"], e.get("op"), " ".join(absent) or "(unknown op)"))
    tap.ok(not missing, "every ledger line has the README's keys for its op", *missing[:8])
    seqs = {}
    gaps = []
    for e in entries:
        pid = e.get("pid")
        want = seqs.get(pid, 0) + 1
        got = to_int(e.get("seq"))
        if got != want:
            gaps.append("line %d: seq=%s, expected %d" % (e["_line"], e.get("seq"), want))
        seqs[pid] = got if got is not None else want
    tap.ok(not gaps, "ledger seq counts from 1 without gaps in each process", *gaps[:5])


def match_expectations(tap, entries, expects, ops=LEDGER_OPS):
    """Each expectation matches its own ledger line; for the listed ops the
    ledger has no line that the program did not announce."""
    used = set()
    bindings = {}
    for exp in expects:
        found = None
        for index, entry in enumerate(entries):
            if index in used or entry.get("op") != exp.op:
                continue
            hit, new = exp.matches(entry, bindings)
            if hit:
                found, bindings = index, new
                break
        if found is None:
            close = [e for i, e in enumerate(entries) if i not in used and e.get("op") == exp.op]
            tap.ok(False, "ledger has: " + exp.text,
                   "no unused op=%s line matches; %d candidates, first: %s" %
                   (exp.op, len(close), format_entry(close[0]) if close else "none"))
            continue
        used.add(found)
        tap.ok(True, "ledger has: " + exp.text)
        yield exp, entries[found]
    for op in ops:
        want = sum(1 for e in expects if e.op == op)
        lines = [e for e in entries if e.get("op") == op]
        extra = [format_entry(e) for i, e in enumerate(entries)
                 if i not in used and e.get("op") == op]
        tap.ok(len(lines) == want, "ledger has exactly %d op=%s lines (has %d)" %
               (want, op, len(lines)), *["unannounced: " + x for x in extra[:6]])


def format_entry(entry):
    return " ".join("%s=%s" % (k, v) for k, v in entry.items() if not k.startswith("_"))


def env_float(name, default):
    value = os.environ.get(name)
    try:
        return float(value) if value else float(default)
    except ValueError:
        return float(default)


class Model:
    """The timing model of README.md "Timing model", from the same
    CUDASIM_* variables the simulator read."""

    def __init__(self):
        self.latency = env_float("CUDASIM_COPY_LATENCY_NS", 1500)
        self.kernel = env_float("CUDASIM_KERNEL_NS", 5000)
        self.bw = {
            ("HtoD", "pinned"): env_float("CUDASIM_BW_HTOD_PINNED", 25e9),
            ("HtoD", "pageable"): env_float("CUDASIM_BW_HTOD_PAGEABLE", 10e9),
            ("DtoH", "pinned"): env_float("CUDASIM_BW_DTOH_PINNED", 26e9),
            ("DtoH", "pageable"): env_float("CUDASIM_BW_DTOH_PAGEABLE", 10e9),
            ("DtoD", "none"): env_float("CUDASIM_BW_DTOD", 700e9),
            ("PtoP", "none"): env_float("CUDASIM_BW_PEER", 20e9),
            "HtoH": env_float("CUDASIM_BW_HTOH", 10e9),
            "memset": env_float("CUDASIM_BW_MEMSET", 1e12),
        }

    def duration(self, entry):
        """Modelled GPU duration of a memcpy/memset/launch/prefetch line, or
        None. A prefetch moves its htod/dtoh/dtod bytes over the pinned
        and peer bandwidths after one latency."""
        op = entry.get("op")
        size = to_int(entry.get("bytes"))
        if op == "launch":
            return self.kernel
        if op == "prefetch":
            moved = [to_int(entry.get(k)) for k in ("htod", "dtoh", "dtod")]
            if None in moved:
                return None
            return self.latency + 1e9 * (moved[0] / self.bw[("HtoD", "pinned")] +
                                         moved[1] / self.bw[("DtoH", "pinned")] +
                                         moved[2] / self.bw[("PtoP", "none")])
        if op == "memset" and size is not None:
            return self.latency + size * 1e9 / self.bw["memset"]
        if op != "memcpy" or size is None:
            return None
        if entry.get("dir") == "HtoH":
            bw = self.bw["HtoH"]
        else:
            bw = self.bw.get((entry.get("dir"), entry.get("host")))
        if bw is None:
            return None
        return self.latency + size * 1e9 / bw


def check_gpu_times(tap, entries, model=None):
    """GPU work: start <= end, each stream runs its work in order without
    overlap, and (with a model) each piece lasts what the model says."""
    problems, overlaps, wrong = [], [], []
    last_end = {}
    for e in entries:
        if e.get("op") not in ("memcpy", "memset", "launch", "prefetch"):
            continue
        start, end = to_int(e.get("gpu_start")), to_int(e.get("gpu_end"))
        if start is None or end is None or start > end or start == 0:
            problems.append(format_entry(e))
            continue
        key = (e.get("dev"), e.get("stream"))
        if key in last_end and start < last_end[key]:
            overlaps.append("%s starts %d ns before the previous work on its stream ends" %
                            (format_entry(e), last_end[key] - start))
        last_end[key] = max(end, last_end.get(key, 0))
        if model is not None:
            want = model.duration(e)
            if want is not None and abs((end - start) - want) > max(2.0, want * 1e-4):
                wrong.append("%s: lasts %d ns, the model says %.0f" %
                             (format_entry(e), end - start, want))
    tap.ok(not problems, "GPU work has 0 < gpu_start <= gpu_end", *problems[:5])
    tap.ok(not overlaps, "work on one stream runs in submission order without overlap",
           *overlaps[:5])
    if model is not None:
        tap.ok(not wrong, "every copy, memset, prefetch and kernel lasts latency + bytes/bandwidth "
               "(kernels: CUDASIM_KERNEL_NS)", *wrong[:6])
