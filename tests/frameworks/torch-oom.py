#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# torch-oom.py - a PyTorch program that dies of an uncaught
# torch.OutOfMemoryError, at the line marked OOM-HERE, for torch.sh: it
# keeps a tensor, frees another into the caching allocator's cache, prints
# what PyTorch says of its memory ("# fact NAME VALUE": allocated,
# torch.cuda.memory_allocated(); total, the device's total_memory), then
# asks for 1 TiB. PyTorch empties its cache before it gives up: what it
# holds then (reserved, torch.cuda.memory_reserved()) is printed once the
# traceback is, by an exit handler.

import atexit

import torch


def fact(name, value):
    print("# fact %s %s" % (name, value), flush=True)


kept = torch.empty(96 << 20, dtype=torch.uint8, device="cuda")
freed = torch.empty(160 << 20, dtype=torch.uint8, device="cuda")
del freed
fact("allocated", torch.cuda.memory_allocated())
fact("total", torch.cuda.get_device_properties(0).total_memory)
atexit.register(lambda: fact("reserved", torch.cuda.memory_reserved()))
torch.empty(1 << 40, dtype=torch.uint8, device="cuda")  # OOM-HERE
