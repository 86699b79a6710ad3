# SPDX-License-Identifier: MIT
#
# torch-linear.py - a small training loop of nn.Linear layers, whose
# matrix products are cuBLAS's: the forward pass's addmm with a bias goes
# through cuBLASLt (cublasLtMatmul), the backward pass's products, made on
# PyTorch's autograd thread, through cuBLAS (cublasSgemm_v2 or
# cublasGemmEx), and a plain torch.mm on the main thread. Prints "# fact
# NAME VALUE" lines: the shapes PyTorch gives the results and the steps
# run.

import torch

STEPS = 5


def main():
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    # Drawn on the host: the device's random kernels have names longer than
    # the trace keeps, which the ledger check would tell apart.
    x = torch.randn(32, 64).cuda()
    for _ in range(STEPS):
        out = model(x)  # FORWARD
        loss = out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()  # BACKWARD
        optimizer.step()
    product = torch.mm(x, x.T)  # MM
    torch.cuda.synchronize()
    print("# fact out", tuple(out.shape), flush=True)
    print("# fact grad", tuple(model[0].weight.grad.shape), flush=True)
    print("# fact mm", tuple(product.shape), flush=True)
    print("# fact steps", STEPS, flush=True)


main()
