# SPDX-License-Identifier: MIT
#
# torch-uploads.py - a training loop fed by a DataLoader with
# pin_memory=True: each batch is copied into a pinned block of PyTorch's
# caching host allocator, which hands the same block back step after step,
# and uploaded from there with non_blocking=True. Beside the batches, two
# tensors that never change are uploaded every step, one pageable and one
# pinned (the lines marked SAME). Prints "# fact steps N".

import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(1024, 256), torch.randint(0, 10, (1024,)))
    loader = DataLoader(data, batch_size=64, shuffle=True, pin_memory=True)
    table = torch.randn(4096)
    pinned = torch.randn(8192).pin_memory()
    weight = torch.randn(256, 10, device="cuda", requires_grad=True)
    optimizer = torch.optim.SGD([weight], lr=0.01)
    steps = 0
    for xb, yb in loader:
        xb = xb.to("cuda", non_blocking=True)
        yb = yb.to("cuda", non_blocking=True)
        scale = table.to("cuda")  # SAME
        bias = pinned.to("cuda", non_blocking=True)  # SAME
        logits = xb @ weight + scale[:10] + bias[:10]
        loss = torch.nn.functional.cross_entropy(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        steps += 1
    loss.item()
    print("# fact steps", steps, flush=True)


main()
