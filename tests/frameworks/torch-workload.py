#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# torch-workload.py - PyTorch on the GPU as a training script uses it: a
# tensor allocated on the device, an elementwise kernel, copies both ways,
# the caching allocator's cache emptied, and an allocation larger than the
# device that raises torch.OutOfMemoryError. Prints what PyTorch itself
# says, as "# fact KEY VALUE" lines:
#
#   version (torch.__version__), device NAME, roundtrip ok|bad, kernel ok,
#   empty_cache_reserved BYTES, oom caught, allocated_at_oom and
#   reserved_at_oom BYTES (torch.cuda.memory_allocated() and
#   memory_reserved() once it is caught), max_reserved BYTES
#   (torch.cuda.max_memory_reserved()), max_allocated BYTES
#
# and exits 0 when each step did what PyTorch documents. With --die, it
# then allocates too much again without catching the error, and dies of
# it (after "# fact die_line N", the line that allocates).

import sys

import torch


def fact(key, value):
    print("# fact %s %s" % (key, value), flush=True)


def main():
    if not torch.cuda.is_available():
        sys.stderr.write("torch.cuda.is_available() is False\n")
        return 1
    fact("version", torch.__version__)
    fact("device", torch.cuda.get_device_name(0).replace(" ", "_"))
    # A tensor on the device: 64 MiB from the caching allocator.
    a = torch.empty(16 << 20, dtype=torch.float32, device="cuda")
    # An elementwise kernel (kernels do nothing on the simulator: only that
    # it is launched and its result allocated is checked).
    b = a * 2 + 1  # KERNELS-HERE
    torch.cuda.synchronize()
    fact("kernel", "ok" if b.shape == a.shape and b.device.type == "cuda" else "bad")
    # Copies both ways move real bytes.
    host = torch.arange(1 << 20, dtype=torch.int64)
    back = host.to("cuda").to("cpu")  # COPIES-HERE
    fact("roundtrip", "ok" if torch.equal(host, back) else "bad")
    del a, b, back
    # The cached blocks go back to the driver.
    torch.cuda.empty_cache()
    fact("empty_cache_reserved", torch.cuda.memory_reserved())
    # More than the device has: the allocator frees its cache, retries,
    # and raises.
    try:
        torch.empty(1 << 40, dtype=torch.uint8, device="cuda")
        fact("oom", "none")
    except torch.OutOfMemoryError:
        fact("oom", "caught")
        fact("allocated_at_oom", torch.cuda.memory_allocated())
        fact("reserved_at_oom", torch.cuda.memory_reserved())
    fact("max_reserved", torch.cuda.max_memory_reserved())
    fact("max_allocated", torch.cuda.max_memory_allocated())
    if "--die" in sys.argv:
        keep = torch.ones(1 << 20, device="cuda")  # noqa: F841 (held when it dies)
        fact("die_line", sys._getframe().f_lineno + 1)
        torch.empty(1 << 40, dtype=torch.uint8, device="cuda")
    return 0


if __name__ == "__main__":
    sys.exit(main())
