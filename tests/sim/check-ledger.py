#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-ledger.py - compare the simulator's ledger with what a test program
says it did.

    check-ledger.py LEDGER PROGRAM_OUTPUT [--model]

The program prints '# fact pid=N' and one '# expect op=... key=value ...'
line per operation it performed (see tests/lib/simcheck.py for the syntax).
Checks, as TAP on stdout: the ledger's format, one ledger line for every
expectation and no unannounced alloc/free/memcpy/memset/launch lines, and
GPU times that follow the timing model (--model: durations from the same
CUDASIM_* variables the program ran with).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import simcheck  # noqa: E402


def check_notes(tap, matched):
    """@duration_ns=N: the line's GPU time is N ns (to 1 ns per 10 us)."""
    for exp, entry in matched:
        want = simcheck.to_int(exp.notes.get("duration_ns"))
        if want is None:
            continue
        got = simcheck.to_int(entry.get("gpu_end")) - simcheck.to_int(entry.get("gpu_start"))
        tap.ok(abs(got - want) <= max(2, want // 10000),
               "GPU time of '%s' is the modelled %d ns" % (exp.text, want),
               "gpu_end - gpu_start = %d ns" % got)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: check-ledger.py LEDGER PROGRAM_OUTPUT [--model]\n")
        return 2
    tap = simcheck.Tap()
    raw = simcheck.read_kv_file(argv[1])
    expects, facts = simcheck.read_program_output(argv[2])
    if not tap.ok(raw is not None and len(raw) > 0, "the ledger %s exists and is not empty" %
                  argv[1]):
        return tap.done()
    pid = facts.get("pid")
    tap.ok(pid is not None, "the program printed its pid")
    entries = simcheck.ledger_for_pid(raw, pid)
    tap.ok(len(entries) > 0, "the ledger has lines of pid %s" % pid)
    simcheck.check_ledger_format(tap, entries, raw)
    tap.ok(len(expects) > 0, "the program announced %d operations" % len(expects))
    matched = list(simcheck.match_expectations(tap, entries, expects))
    check_notes(tap, matched)
    model = simcheck.Model() if "--model" in argv[3:] else None
    simcheck.check_gpu_times(tap, entries, model)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
