# SPDX-License-Identifier: MIT
#
# torch-backward.py - a training loop that keeps every step's gradient.
# PyTorch computes the gradients on its autograd engine's thread, which
# runs no Python: the caching allocator's cudaMalloc for each new
# gradient is made there, while the main thread waits in loss.backward().
# With the argument "nvtx", each step is the NVTX range "step", which the
# main thread pushes and pops.
# Prints "# fact NAME VALUE": the gradient's bytes, the steps, and
# torch.cuda.memory_allocated() at the end.

import sys

import torch


def main():
    nvtx = sys.argv[1:] == ["nvtx"]
    n = 5 << 20  # 20 MiB of float32
    w = torch.randn(n, device="cuda", requires_grad=True)
    x = torch.randn(n, device="cuda")
    grads = []
    for _ in range(6):
        if nvtx:
            torch.cuda.nvtx.range_push("step")
        loss = ((x * w).sin() * w).sum()
        loss.backward()  # BACKWARD
        grads.append(w.grad)
        w.grad = None
        if nvtx:
            torch.cuda.nvtx.range_pop()
    print("# fact grad_bytes", w.numel() * w.element_size(), flush=True)
    print("# fact steps", len(grads), flush=True)
    print("# fact allocated", torch.cuda.memory_allocated(), flush=True)


main()
