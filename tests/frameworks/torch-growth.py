# SPDX-License-Identifier: MIT
#
# torch-growth.py - a training loop that keeps a tensor of every step until
# the device is full: each step draws a batch, runs forward and backward
# (PyTorch runs the backward pass on a thread of its own, which launches
# kernels and copies too), updates the weights and keeps 8 MiB. Between
# two launches PyTorch makes many other CUDA calls, so launches' ids are
# far apart. Dies of the uncaught torch.OutOfMemoryError; prints "# fact
# steps N", the steps done.

import torch


def main():
    w = torch.randn(1024, device="cuda", requires_grad=True)
    kept = []
    steps = 0
    try:
        while True:
            x = torch.randn(512, 1024, device="cuda")
            loss = (x * w).pow(2).mean()
            loss.backward()
            with torch.no_grad():
                w -= 0.01 * w.grad
                w.grad = None
            kept.append(torch.empty(8 << 20, dtype=torch.uint8, device="cuda"))  # KEPT
            steps += 1
    except torch.OutOfMemoryError:
        print("# fact steps", steps, flush=True)
        raise


main()
