#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trace-input.py TRACE OUT - pack the CTF trace directory TRACE (its
metadata, up to four stream files, their index files) into one input of
fuzz-report.c's target, written to OUT: records of a kind byte, a 16-bit
little-endian length and the bytes, appended to one file each (see
fuzz-report.c). Stream files are numbered in name order."""
import os
import struct
import sys

RECORD = 4096  # bytes per record: small, so that a mutation stays in one file


def records(kind, data):
    out = b""
    for at in range(0, len(data), RECORD):
        chunk = data[at:at + RECORD]
        out += struct.pack("<BH", kind, len(chunk)) + chunk
    return out


def pack(trace):
    out = records(0, open(os.path.join(trace, "metadata"), "rb").read())
    streams = sorted(f for f in os.listdir(trace)
                     if f != "metadata" and not f.startswith(".")
                     and os.path.isfile(os.path.join(trace, f)))
    for n, name in enumerate(streams[:4]):
        out += records(1 | n << 2, open(os.path.join(trace, name), "rb").read())
        index = os.path.join(trace, "index", name + ".idx")
        if os.path.isfile(index):
            out += records(2 | n << 2, open(index, "rb").read())
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[2], "wb") as f:
        f.write(pack(sys.argv[1]))


if __name__ == "__main__":
    main()
