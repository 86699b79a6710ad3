#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# memory_growth.py - GPU memory that grows step after step: a training loop
# that frees its activations but keeps a little of every step (the loss
# kept with its graph, a list of metrics left on the GPU). On a real job
# the growth ends in "CUDA out of memory" hours later; here it is visible
# after a few steps.
#
#   python3 memory_growth.py [STEPS]          (default 20)
#   cudasim-env python3 memory_growth.py      on the simulated GPU
#   cudatrace record -- cudasim-env python3 memory_growth.py
#
# What cudatrace shows (see README.md): its first finding, that the line
# of kept.append allocated 8 MiB at every step and freed none, the memory
# it holds growing to the end; the peak and the memory still allocated at
# the end grow by 8 MiB a step, all of it from that one call site.

import sys

from gpu_ctypes import MIB, Runtime

ACTIVATIONS = 32 * MIB
KEPT_PER_STEP = 8 * MIB


def step(rt, kept):
    activations = rt.malloc(ACTIVATIONS)
    rt.memset(activations, 0, ACTIVATIONS)
    # The leak: something of every step stays on the GPU.
    kept.append(rt.malloc(KEPT_PER_STEP))
    rt.free(activations)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    rt = Runtime()
    kept = []
    for index in range(steps):
        step(rt, kept)
        free, total = rt.mem_info()
        print("step %2d: %4d MiB kept, %5d MiB free of %d" %
              (index, len(kept) * KEPT_PER_STEP // MIB, free // MIB, total // MIB))
    rt.synchronize()


if __name__ == "__main__":
    main()
