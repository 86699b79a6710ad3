# SPDX-License-Identifier: MIT
"""numba-add.py - a numba-cuda kernel, JIT-compiled (NVVM) and launched: what
a numba user runs. Prints TAP; the kernel does nothing on the simulator, so
the data is checked only for what the copies do."""
import numpy as np
from numba import cuda

n = 1000
count = 0


def ok(cond, desc):
    global count
    count += 1
    print("%sok %d - %s" % ("" if cond else "not ", count, desc), flush=True)


@cuda.jit
def numba_add(a, b, n):
    i = cuda.grid(1)
    if i < n:
        a[i] += b[i]


ok(cuda.is_available(), "numba sees a CUDA device")
a = cuda.to_device(np.full(n, 3, dtype=np.float32))
b = cuda.to_device(np.ones(n, dtype=np.float32))
numba_add[4, 256](a, b, n)
cuda.synchronize()
ok(True, "numba_add[4, 256] was compiled and launched")
ok(bool((b.copy_to_host() == 1).all()), "the device arrays round-trip")
print("1..%d" % count)
