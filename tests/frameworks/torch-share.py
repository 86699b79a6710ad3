#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# torch-share.py - a PyTorch program that may use a quarter of the device
# (torch.cuda.set_per_process_memory_fraction) and keeps a tensor of 256 MiB
# a step until PyTorch refuses one, at the line marked SHARE-HERE, with
# most of the device still free. Prints "# fact NAME VALUE": total (the
# device's total_memory), allowed (the share: total_memory times the
# fraction, as PyTorch computes it) and, once the error is caught,
# reserved (torch.cuda.memory_reserved()); then raises it again, and dies
# of it.

import torch

FRACTION = 0.25


def fact(name, value):
    print("# fact %s %s" % (name, value), flush=True)


torch.cuda.set_per_process_memory_fraction(FRACTION)
total = torch.cuda.get_device_properties(0).total_memory
fact("total", total)
fact("allowed", int(total * FRACTION))
kept = []
try:
    while True:
        kept.append(torch.empty(256 << 20, dtype=torch.uint8, device="cuda"))  # SHARE-HERE
except torch.OutOfMemoryError:
    fact("reserved", torch.cuda.memory_reserved())
    raise
