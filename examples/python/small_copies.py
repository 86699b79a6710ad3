#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# small_copies.py - a storm of small copies from pageable memory: a data
# loader that reads each sample into an ordinary Python buffer and uploads
# it on its own, 4 KiB at a time; then as many bytes uploaded at once from
# pinned memory. Each small synchronous copy pays the copy latency and a
# staging copy through a driver buffer, and leaves the GPU idle between
# copies.
#
#   python3 small_copies.py [COPIES]          (default 2000)
#   cudatrace record -- cudasim-env python3 small_copies.py
#
# What cudatrace shows (see README.md): the small pageable copies at the
# top of the transfer hotspots, far above the one pinned copy of the same
# bytes, with the finding that they are many, small and from pageable
# memory.

import ctypes
import sys

from gpu_ctypes import MIB, Runtime

SAMPLE = 4096


def main():
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    total = copies * SAMPLE
    rt = Runtime()
    device = rt.malloc(max(total, MIB))
    pageable = ctypes.create_string_buffer(SAMPLE)
    for index in range(copies):
        ctypes.memset(pageable, index % 256, SAMPLE)  # the next sample, read into the buffer
        rt.upload(ctypes.c_void_p(device.value + index * SAMPLE), pageable, SAMPLE)
    print("%d uploads of %d bytes from pageable memory" % (copies, SAMPLE))
    pinned = rt.malloc_host(total)
    rt.upload(device, pinned, total)
    print("1 upload of %d bytes from pinned memory" % total)
    rt.synchronize()
    rt.free_host(pinned)
    rt.free(device)


if __name__ == "__main__":
    main()
