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
#   events=N host_events=N gpu_events=N content_bytes=N payload_bytes=N
#   file_bytes=N
#
# gpu_events are the events made from CUPTI activity records (gpu_*,
# activity_dropped), emitted by CUPTI's thread; host_events are the others.
# content_bytes is what the packets hold (headers included, the padding
# that ends each packet left out), read from the trace's index files;
# payload_bytes is the part of it that the events' own fields take (what
# cudatrace chooses; the rest is event headers, the session's contexts
# and packet headers); file_bytes is the size of the stream files on
# disk.

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


def field_bytes(field, counted=None):
    """Bytes a payload field takes in the stream: integers (enumerations
    too) by their width, text by its length (a NUL more unless a length
    field of its own came before it), arrays and structures by their
    members."""
    if isinstance(field, bt2._StringFieldConst):
        return len(str(field).encode()) + (0 if counted else 1)
    if isinstance(field, bt2._StructureFieldConst):
        total = 0
        for name in field.keys():
            total += field_bytes(field[name], name.startswith("_") and name.endswith("_length"))
        return total
    if isinstance(field, bt2._ArrayFieldConst):
        return sum(field_bytes(element) for element in field)
    if isinstance(field, bt2._BoolFieldConst):
        return 1
    return field.cls.field_value_range // 8


def has_text(field):
    if isinstance(field, bt2._StringFieldConst):
        return True
    if isinstance(field, bt2._StructureFieldConst):
        return any(has_text(field[name]) for name in field.keys())
    if isinstance(field, bt2._ArrayFieldConst):
        return not isinstance(field, bt2._StaticArrayFieldConst) or any(
            has_text(element) for element in field)
    return False


def count_events(path):
    host = gpu = payload = 0
    fixed = {}  # event name: payload bytes, for classes without text
    for msg in bt2.TraceCollectionMessageIterator(path):
        if isinstance(msg, bt2._EventMessageConst):
            event = msg.event
            name = event.name.partition(":")[2]
            if name.startswith(GPU_PREFIXES):
                gpu += 1
            else:
                host += 1
            size = fixed.get(name)
            if size is None:
                size = field_bytes(event.payload_field)
                if not has_text(event.payload_field):
                    fixed[name] = size
            payload += size
    return host, gpu, payload


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: trace-stats.py TRACE_DIR\n")
        return 2
    path = argv[1]
    host, gpu, payload = count_events(path)
    file_bytes = sum(os.path.getsize(f) for f in stream_files(path))
    print("events=%d host_events=%d gpu_events=%d content_bytes=%d payload_bytes=%d "
          "file_bytes=%d" % (host + gpu, host, gpu, index_content_bytes(path), payload,
                             file_bytes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
