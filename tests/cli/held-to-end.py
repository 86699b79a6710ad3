#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# held-to-end.py - GPU memory a program allocates and never frees, held
# until it ends (weights loaded once, a cache filled and forgotten), beside
# scratch memory it frees each step: the examples' runtime (gpu_ctypes.py),
# no framework.
#
#   held-to-end.py [--fail]
#
# Prints, for each line that allocates what it never frees,
# "# held LINE COUNT BYTES": the line of the call in this file, the
# allocations made there and their bytes; then "# done". Exits 0.
# With --fail, it then asks for 64 MiB more than the device has free,
# prints "# failed LINE BYTES ERROR" (the line of the call, what it asked,
# the error's name) and exits 1.

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples", "python"))

from gpu_ctypes import MIB, CudaError, Runtime  # noqa: E402

WEIGHTS = 3
WEIGHT_BYTES = 16 * MIB
CACHE_BYTES = 4 * MIB
SCRATCH_BYTES = 32 * MIB


def line_of(marker):
    """The line of this file that ends with the comment MARKER."""
    with open(os.path.abspath(__file__)) as f:
        for number, text in enumerate(f, 1):
            if text.rstrip().endswith("# " + marker):
                return number
    raise LookupError(marker)


def load_weights(rt):
    return [rt.malloc(WEIGHT_BYTES) for _ in range(WEIGHTS)]  # weights


def fill_cache(rt):
    return rt.malloc(CACHE_BYTES)  # cache


def main():
    rt = Runtime()
    weights = load_weights(rt)
    cache = fill_cache(rt)
    for _ in range(4):
        scratch = rt.malloc(SCRATCH_BYTES)
        rt.memset(scratch, 0, SCRATCH_BYTES)
        rt.free(scratch)
    print("# held %d %d %d" % (line_of("weights"), len(weights), WEIGHTS * WEIGHT_BYTES))
    print("# held %d %d %d" % (line_of("cache"), 1 if cache else 0, CACHE_BYTES))
    print("# done", flush=True)
    if "--fail" in sys.argv[1:]:
        free, _ = rt.mem_info()
        try:
            rt.malloc(free + 64 * MIB)  # too much
        except CudaError as error:
            print("# failed %d %d %s" % (line_of("too much"), free + 64 * MIB, error.name),
                  flush=True)
            sys.exit(1)


if __name__ == "__main__":
    main()
