# SPDX-License-Identifier: MIT
#
# torch-loader.py - a training loop that feeds its model batches of
# varying length, each a slice of a dataset in pageable host memory
# copied to the device with .to("cuda"), and reads its loss back with
# .item(): no two steps copy the same addresses or size. Prints "# fact
# NAME VALUE" lines: the steps run, and the bytes and copies it moved to
# the device (its weights once, then the batches) and back, from the
# tensors' own sizes.

import torch

STEPS = 40


def main():
    torch.manual_seed(0)
    data = torch.randn(2048, 64)
    labels = torch.randint(0, 10, (2048,))
    # drawn on the host: the device's random kernels have names longer
    # than the trace keeps, which the ledger check would tell apart
    weight = torch.randn(64, 10).to("cuda").requires_grad_()
    optimizer = torch.optim.SGD([weight], lr=0.01)
    up, down = weight.nbytes, 0
    for step in range(STEPS):
        n = 32 + (step % 5) * 8
        i = (step * 37) % (2048 - n)
        xb = data[i:i + n].to("cuda")  # BATCH
        yb = labels[i:i + n].to("cuda")
        up += xb.nbytes + yb.nbytes
        loss = torch.nn.functional.cross_entropy(xb @ weight, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss.item()
        down += loss.element_size()
    print("# fact steps", STEPS, flush=True)
    print("# fact htod", up, 1 + 2 * STEPS, flush=True)
    print("# fact dtoh", down, STEPS, flush=True)


main()
