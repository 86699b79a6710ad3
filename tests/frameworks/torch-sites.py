#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# torch-sites.py - a PyTorch program whose tensors come from known lines,
# for torch.sh under `cudatrace record --tensor-sites`: weights (64 MiB,
# the line marked WEIGHTS), five steps that each allocate 32 MiB of
# activations (ACTIVATIONS), freed in the step, and keep 8 MiB (KEPT),
# then an out-of-memory error it catches (OOM-HERE). It prints what
# PyTorch says of its memory ("# fact NAME VALUE"): oom_allocated,
# torch.cuda.memory_allocated() once the error is caught; allocated and
# max_allocated, memory_allocated() and max_memory_allocated() at the end.

import torch


def fact(name, value):
    print("# fact %s %s" % (name, value), flush=True)


def weights():
    return torch.empty(64 << 20, dtype=torch.uint8, device="cuda")  # WEIGHTS


def step(kept):
    activations = torch.empty(32 << 20, dtype=torch.uint8, device="cuda")  # ACTIVATIONS
    kept.append(torch.empty(8 << 20, dtype=torch.uint8, device="cuda"))  # KEPT
    del activations


def main():
    model = weights()
    kept = []
    for _ in range(5):
        step(kept)
    try:
        torch.empty(1 << 40, dtype=torch.uint8, device="cuda")  # OOM-HERE
    except torch.OutOfMemoryError:
        fact("oom_allocated", torch.cuda.memory_allocated())
    fact("allocated", torch.cuda.memory_allocated())
    fact("max_allocated", torch.cuda.max_memory_allocated())
    return model, kept


if __name__ == "__main__":
    HELD = main()  # held to the end: live at exit
