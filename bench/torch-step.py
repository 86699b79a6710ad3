#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# torch-step.py - PyTorch training steps on the GPU, for the benchmark
# (bench/torch-bench.sh): a small model of elementwise layers, its loss,
# backward pass and SGD step, and the loss read back to the host each step,
# as a training loop logs it. Kernels do nothing on the simulated GPU: the
# calls are what is measured. Runs one step first (allocations, first-call
# costs), then times STEPS steps and prints
#
#   steps=N ns=TOTAL ns_per_step=X
#
#   torch-step.py [STEPS]    default 200

import sys
import time

import torch


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    if steps <= 0 or not torch.cuda.is_available():
        sys.stderr.write("usage: torch-step.py [STEPS] (on a CUDA device)\n")
        return 2
    torch.manual_seed(0)
    x = torch.randn(256, 64, device="cuda")
    y = torch.randn(256, 64, device="cuda")
    w1 = torch.randn(64, device="cuda", requires_grad=True)
    b1 = torch.zeros(64, device="cuda", requires_grad=True)
    w2 = torch.randn(64, device="cuda", requires_grad=True)
    optimizer = torch.optim.SGD([w1, b1, w2], lr=0.01)

    def step():
        optimizer.zero_grad(set_to_none=True)
        hidden = torch.relu(x * w1 + b1)
        loss = ((hidden * w2 - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss.item()

    step()
    torch.cuda.synchronize()
    start = time.monotonic_ns()
    for _ in range(steps):
        step()
    elapsed = time.monotonic_ns() - start
    print("steps=%d ns=%d ns_per_step=%.1f" % (steps, elapsed, elapsed / steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
