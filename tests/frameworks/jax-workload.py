#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# jax-workload.py - JAX on the GPU: an array put on the device and got
# back, and a jitted elementwise function applied to it. Run with
# JAX_PLATFORMS=cuda, so that JAX fails rather than falling back to the
# CPU. Prints "# fact KEY VALUE" lines:
#
#   platform NAME (of jax.devices()[0]), devices N, roundtrip ok|bad,
#   jit ok|bad (the result's shape, dtype and device), oom caught|none
#   (an array larger than the device raises RESOURCE_EXHAUSTED),
#   version (jax.__version__), peak_pool_bytes, bytes_limit,
#   peak_bytes_in_use (the device's memory_stats(), JAX's own figures of
#   its allocator), held_bytes (what the two arrays it keeps to the end,
#   made at the lines marked PUT and JIT, hold)
#
# and exits 0 when each step did what JAX documents. With --die it then
# asks for 1 TiB at the line marked DIE, and dies of the uncaught
# RESOURCE_EXHAUSTED.

import sys

import jax
import jax.numpy as jnp
import numpy as np


# Kept to the end: live at exit.
HELD = []


def fact(key, value):
    print("# fact %s %s" % (key, value), flush=True)


def main():
    devices = jax.devices()
    fact("version", jax.__version__)
    fact("platform", devices[0].platform)
    fact("devices", len(devices))
    host = np.arange(1 << 20, dtype=np.float32)
    x = jax.device_put(host, devices[0])  # PUT
    # Copies move real bytes on the simulator.
    fact("roundtrip", "ok" if np.array_equal(jax.device_get(x), host) else "bad")
    scale = jax.jit(lambda a: a * 2.0 + 1.0)
    # Kernels do nothing on the simulator: only the result's form is checked.
    y = scale(x)  # JIT
    y.block_until_ready()
    HELD.extend([x, y])
    fact("held_bytes", x.nbytes + y.nbytes)
    good = y.shape == x.shape and y.dtype == x.dtype and y.devices() == {devices[0]}
    fact("jit", "ok" if good else "bad")
    # More than the device has: JAX's allocator refuses it.
    try:
        jnp.zeros((1 << 32,), jnp.float32).block_until_ready()
        fact("oom", "none")
    except jax.errors.JaxRuntimeError as error:
        fact("oom", "caught" if "RESOURCE_EXHAUSTED" in str(error) else "other")
    stats = devices[0].memory_stats()
    fact("peak_pool_bytes", stats["peak_pool_bytes"])
    fact("bytes_limit", stats["bytes_limit"])
    fact("peak_bytes_in_use", stats["peak_bytes_in_use"])
    if "--die" in sys.argv:
        jnp.zeros((1 << 40,), jnp.uint8).block_until_ready()  # DIE
    return 0


if __name__ == "__main__":
    sys.exit(main())
