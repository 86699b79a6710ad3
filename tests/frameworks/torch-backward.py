# SPDX-License-Identifier: MIT
#
# torch-backward.py - a training loop that keeps every step's gradient.
# PyTorch computes the gradients on its autograd engine's thread, which
# runs no Python: the caching allocator's cudaMalloc for each new
# gradient is made there, while the main thread waits in loss.backward().
# Prints "# fact NAME VALUE": the gradient's bytes, the steps, and
# torch.cuda.memory_allocated() at the end.

import torch


def main():
    n = 5 << 20  # 20 MiB of float32
    w = torch.randn(n, device="cuda", requires_grad=True)
    x = torch.randn(n, device="cuda")
    grads = []
    for _ in range(6):
        loss = ((x * w).sin() * w).sum()
        loss.backward()  # BACKWARD
        grads.append(w.grad)
        w.grad = None
    print("# fact grad_bytes", w.numel() * w.element_size(), flush=True)
    print("# fact steps", len(grads), flush=True)
    print("# fact allocated", torch.cuda.memory_allocated(), flush=True)


main()
