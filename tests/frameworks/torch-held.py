#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# torch-held.py - a PyTorch program whose device is full of a tensor it
# made at start-up (the line marked HELD) and keeps, for torch.sh: a few
# steps allocate and free scratch tensors, then a request that does not
# fit beside the kept one raises torch.OutOfMemoryError (the line marked
# OOM-HERE). Prints "# fact reserved N" (torch.cuda.memory_reserved())
# before that request, when the kept tensor is all PyTorch holds.

import torch

GIB = 1 << 30

kept = torch.empty(3 * GIB, dtype=torch.uint8, device="cuda")  # HELD
for _ in range(3):
    scratch = torch.empty(GIB // 4, dtype=torch.uint8, device="cuda")
    del scratch
torch.cuda.empty_cache()
print("# fact reserved %d" % torch.cuda.memory_reserved(), flush=True)
torch.empty(3 * GIB // 2, dtype=torch.uint8, device="cuda")  # OOM-HERE
