# SPDX-License-Identifier: MIT
"""tracecheck - what the checkers of cudatrace traces share
(tests/trace/check-trace.py, tests/gpu/check-printout.py): TAP whose
every test may carry details, reading the key=value lines of
tests/trace/read-trace.py and of the simulator's ledger, and the
enumerations of doc/events.md.

Python 3 standard library only.
"""

import re

# Details printed under a test at the most.
MAX_DIAGS = 12

# doc/events.md enumerations, for a tracer that writes them as integers.
ENUMS = {
    "domain": {1: "driver", 2: "runtime", 3: "resource", 4: "synchronize", 5: "nvtx"},
    "kind": {0: "unknown", 1: "device", 2: "pitch", 3: "host_pinned", 4: "host_registered",
             5: "managed", 6: "async", 7: "vmm_physical", 8: "vmm_map"},
    "direction": {0: "unknown", 1: "HtoD", 2: "DtoH", 3: "DtoD", 4: "HtoH", 5: "PtoP"},
    "host": {0: "none", 1: "pageable", 2: "pinned"},
}


# ------------------------------------------------------------ TAP

class Tap:
    """TAP with the plan printed last; each test's details (at most
    MAX_DIAGS of them) follow it as comments, passed or not."""

    def __init__(self):
        self.count = 0
        self.failures = 0

    def ok(self, passed, description, details=()):
        self.count += 1
        if not passed:
            self.failures += 1
        print("%sok %d - %s" % ("" if passed else "not ", self.count, description))
        details = list(details)
        for line in details[:MAX_DIAGS]:
            print("#   %s" % line)
        if len(details) > MAX_DIAGS:
            print("#   ... and %d more" % (len(details) - MAX_DIAGS))
        return passed

    def skip(self, why):
        self.count += 1
        print("ok %d # SKIP %s" % (self.count, why))

    @staticmethod
    def diag(text):
        print("# %s" % text)

    def done(self):
        print("1..%d" % self.count)
        return 1 if self.failures else 0


# ------------------------------------------------------------ input

def parse_pairs(line):
    """'a=1 b=x' -> {'a': '1', 'b': 'x'}; words without '=' are left out."""
    pairs = {}
    for item in line.split():
        key, sep, value = item.partition("=")
        if sep:
            pairs[key] = value
    return pairs


def number(value, default=None):
    try:
        return int(value, 0)
    except (TypeError, ValueError):
        return default


def load_ledger(path):
    """The operations of a ledger, with their line index under '_index'."""
    ops = []
    with open(path, encoding="utf-8", errors="replace") as ledger:
        for index, line in enumerate(ledger):
            pairs = parse_pairs(line)
            if "op" in pairs:
                pairs["_index"] = index
                ops.append(pairs)
    return ops


def load_events(path):
    """The events read-trace.py printed, with '_provider' and '_name' (from
    'event=provider:name') and their line index under '_index'."""
    events = []
    with open(path, encoding="utf-8", errors="replace") as trace:
        for index, line in enumerate(trace):
            pairs = parse_pairs(line)
            if "event" not in pairs:
                continue
            provider, _, name = pairs["event"].partition(":")
            pairs["_provider"] = provider
            pairs["_name"] = name
            pairs["_index"] = index
            events.append(pairs)
    return events


def enum_text(field, value):
    """An enumeration value as its label, whether written as label or number."""
    code = number(value)
    if code is not None and field in ENUMS:
        return ENUMS[field].get(code, value)
    return value


def api_text(name):
    """An API name without CUPTI's version suffix (cuMemAlloc_v2 -> cuMemAlloc)."""
    return re.sub(r"_v[0-9]+(?=$|_)", "", name or "")
