#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# torch-pool.py - a PyTorch script that frees every tensor it made and
# exits 0, without emptying the caching allocator's cache: the segments
# it reserved from the driver stay allocated until the process ends, as
# PyTorch means them to. Prints "# fact allocated BYTES" and
# "# fact reserved BYTES" (torch.cuda.memory_allocated() and
# memory_reserved() at the end).

import torch


def main():
    x = torch.ones(1 << 20, device="cuda")
    y = (x * 2).sum().item()
    del x
    print("# fact sum %d" % y)
    print("# fact allocated %d" % torch.cuda.memory_allocated())
    print("# fact reserved %d" % torch.cuda.memory_reserved(), flush=True)


if __name__ == "__main__":
    main()
