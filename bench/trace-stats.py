#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# trace-stats.py - the size of an LTTng trace and what it holds, for the
# benchmark:
#
#   /usr/bin/python3 trace-stats.py TRACE_DIR
#
# prints one line
#
#   events=N host_events=N gpu_events=N content_bytes=N file_bytes=N
#
# gpu_events are the events made from CUPTI activity records (gpu_*,
# activity_dropped), emitted by CUPTI's thread; host_events are the others.
# content_bytes is what the packets hold (headers included, the padding
# that ends each packet left out), read from the trace's index files;
# file_bytes is the size of the stream files on disk.

import os
import struct
import sys

import bt2

INDEX_MAGIC = 0xC1F1DCC1
GPU_PREFIXES = ("gpu_", "activity_dropped")


def stream_files(path):
    for directory, _, files in os.walk(path):
        if os.path.basename(directory) == "index":
            continue
        for name in files:
            if name != "metadata":
                yield os.path.join(directory, name)


def index_content_bytes(path):
    """Sum of content_size over the packets of every CTF index file."""
    total = 0
    for directory, _, files in os.walk(path):
        if os.path.basename(directory) != "index":
            continue
        for name in files:
            with open(os.path.join(directory, name), "rb") as index:
                data = index.read()
            magic, _, _, entry_size = struct.unpack_from(">IIII", data, 0)
            if magic != INDEX_MAGIC or entry_size < 24:
                raise ValueError("%s: not a CTF index" % name)
            for offset in range(16, len(data) - entry_size + 1, entry_size):
                _, _, content_bits = struct.unpack_from(">QQQ", data, offset)
                total += content_bits // 8
    return total


def count_events(path):
    host = gpu = 0
    for msg in bt2.TraceCollectionMessageIterator(path):
        if isinstance(msg, bt2._EventMessageConst):
            name = msg.event.name.partition(":")[2]
            if name.startswith(GPU_PREFIXES):
                gpu += 1
            else:
                host += 1
    return host, gpu


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: trace-stats.py TRACE_DIR\n")
        return 2
    path = argv[1]
    host, gpu = count_events(path)
    file_bytes = sum(os.path.getsize(f) for f in stream_files(path))
    print("events=%d host_events=%d gpu_events=%d content_bytes=%d file_bytes=%d"
          % (host + gpu, host, gpu, index_content_bytes(path), file_bytes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
