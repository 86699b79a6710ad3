#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# fragmentation_oom.py - "out of memory" although enough memory is free:
# the device is filled with 64 MiB blocks, every other block is freed, and
# a 128 MiB request then fails: the free memory is there, but in 64 MiB
# holes. This is how a caching allocator's blocks or long-lived buffers
# interleaved with short-lived ones fragment a GPU.
#
#   python3 fragmentation_oom.py
#   cudatrace record -- cudasim-env python3 fragmentation_oom.py
#
# On the simulated GPU the script gives the device 1 GiB
# (CUDASIM_DEVICE_MEMORY) unless that is set already; its allocator is
# first-fit over one address range, so the holes are real. On a real GPU
# the driver maps physical pages where it likes and plain cudaMalloc
# rarely fragments like this: there, fragmentation lives in the
# frameworks' caching allocators (see torch_memory.py --fragment).
#
# Exits with 1 on the failure, as a training script that dies with
# "CUDA out of memory" would. What cudatrace shows (see README.md): the
# failure, with the verdict "fragmented": free memory above the request,
# largest free block below it.

import os
import sys

# Before the runtime loads: the simulator reads it when CUDA initialises.
os.environ.setdefault("CUDASIM_DEVICE_MEMORY", "1G")

from gpu_ctypes import MIB, CudaError, Runtime  # noqa: E402

BLOCK = 64 * MIB
REQUEST = 128 * MIB


def main():
    rt = Runtime()
    blocks = []
    try:
        while True:
            blocks.append(rt.malloc(BLOCK))
    except CudaError:
        pass
    print("filled the device with %d blocks of %d MiB" % (len(blocks), BLOCK // MIB))
    for block in blocks[::2]:
        rt.free(block)
    free, total = rt.mem_info()
    print("freed every other block: %d MiB free of %d" % (free // MIB, total // MIB))
    try:
        rt.malloc(REQUEST)
    except CudaError as error:
        print("a %d MiB allocation failed with %d MiB free: %s" %
              (REQUEST // MIB, free // MIB, error))
        return 1
    print("the allocation succeeded: this GPU does not fragment like the simulator")
    return 0


if __name__ == "__main__":
    sys.exit(main())
