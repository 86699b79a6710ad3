#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# torch_memory.py - the GPU memory failures PyTorch users meet, on a real
# GPU, for `cudatrace record`. Needs PyTorch with CUDA.
#
#   cudatrace record -- python3 torch_memory.py growth [--fixed]
#   cudatrace record -- python3 torch_memory.py fragment [--expandable]
#   cudatrace record -- python3 torch_memory.py loader [--pin-memory]
#
# growth    a training loop that keeps every loss with its graph
#           (losses.append(loss)): memory grows step after step until
#           "CUDA out of memory"; --fixed keeps loss.item() instead.
# fragment  tensors of mixed sizes, half of them freed, then one large
#           tensor: "CUDA out of memory" although PyTorch reports much
#           memory reserved but unallocated; --expandable runs the same
#           with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.
# loader    a DataLoader feeding a model, with pin_memory off (pageable
#           host memory: synchronous staging copies) or on
#           (--pin-memory, copies with non_blocking=True).
#
# Every part marks its phases with torch.cuda.nvtx ranges, which cudatrace
# records, so that the report names "train/step" rather than bare calls.
#
# PyTorch's caching allocator asks CUDA for large segments and keeps them:
# cudatrace sees segments (what PyTorch reserved), not tensors. Set
# PYTORCH_NO_CUDA_MEMORY_CACHING=1 to see every tensor as an allocation of
# its own (slower), which is what the leak and fragmentation views want.
# README.md says what each run's report shows.

import argparse
import os
import sys


def growth(torch, fixed):
    model = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU(),
                                torch.nn.Linear(4096, 4096)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    losses = []
    with torch.cuda.nvtx.range("train"):
        for step in range(200):
            with torch.cuda.nvtx.range("step"):
                batch = torch.randn(512, 4096, device="cuda")
                loss = model(batch).pow(2).mean()
                optimizer.zero_grad()
                loss.backward(retain_graph=not fixed)
                optimizer.step()
                # The leak: the loss keeps its graph, and the graph its activations.
                losses.append(loss.item() if fixed else loss)
            if step % 20 == 0:
                print("step %3d: %.0f MiB allocated" %
                      (step, torch.cuda.memory_allocated() / 2**20), flush=True)


def fragment(torch, expandable):
    if expandable:
        print("run with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", flush=True)
    free, total = torch.cuda.mem_get_info()
    chunk = 64 << 20
    kept, dropped = [], []
    with torch.cuda.nvtx.range("fill"):
        try:
            for index in range(int(free * 0.9) // chunk):
                # Mixed sizes: small and large blocks interleave in the segments.
                size = chunk if index % 2 == 0 else chunk // 3
                tensor = torch.empty(size, dtype=torch.uint8, device="cuda")
                (kept if index % 4 < 2 else dropped).append(tensor)
        except torch.cuda.OutOfMemoryError:
            pass
    del dropped
    print("reserved %.0f MiB, allocated %.0f MiB" %
          (torch.cuda.memory_reserved() / 2**20, torch.cuda.memory_allocated() / 2**20))
    with torch.cuda.nvtx.range("big"):
        big = torch.empty(int(free * 0.3), dtype=torch.uint8, device="cuda")
    print("allocated %d MiB" % (big.numel() >> 20))


def loader(torch, pin_memory):
    from torch.utils.data import DataLoader, TensorDataset

    data = TensorDataset(torch.randn(20000, 1024), torch.randint(0, 10, (20000,)))
    batches = DataLoader(data, batch_size=64, shuffle=True, num_workers=2,
                         pin_memory=pin_memory)
    model = torch.nn.Linear(1024, 10).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    with torch.cuda.nvtx.range("epoch"):
        for inputs, labels in batches:
            with torch.cuda.nvtx.range("load"):
                inputs = inputs.cuda(non_blocking=pin_memory)
                labels = labels.cuda(non_blocking=pin_memory)
            with torch.cuda.nvtx.range("step"):
                loss = torch.nn.functional.cross_entropy(model(inputs), labels)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
    torch.cuda.synchronize()


def main():
    parser = argparse.ArgumentParser(
        description="the GPU memory failures PyTorch users meet, for cudatrace record")
    parser.add_argument("case", choices=("growth", "fragment", "loader"))
    parser.add_argument("--fixed", action="store_true")
    parser.add_argument("--expandable", action="store_true")
    parser.add_argument("--pin-memory", action="store_true")
    args = parser.parse_args()
    if args.expandable:
        # Read by PyTorch when CUDA initialises: before the import.
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
    import torch

    if not torch.cuda.is_available():
        sys.exit("torch_memory.py: PyTorch sees no CUDA device")
    if args.case == "growth":
        growth(torch, args.fixed)
    elif args.case == "fragment":
        fragment(torch, args.expandable)
    else:
        loader(torch, args.pin_memory)


if __name__ == "__main__":
    main()
