#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# tensorflow-workload.py - TensorFlow on the GPU: the GPU listed, a tensor
# placed on it and copied back, a copy from one device tensor to another,
# an elementwise op on it, and a tensor larger than the device. Prints
# "# fact KEY VALUE" lines as it goes, so that where TensorFlow stops is
# the last fact printed:
#
#   version (tf.__version__), gpus N (tf.config.list_physical_devices),
#   growth on|off (tf.config.experimental.get_memory_growth, which
#   TF_FORCE_GPU_ALLOW_GROWTH sets), placed DEVICE (of a tf.constant
#   made under tf.device("/GPU:0")), roundtrip ok|bad (its value read
#   back), copy ok|bad (tf.identity on the GPU: the same value, on the
#   GPU), elementwise ok|bad (x * 2 + 1 on the GPU: its shape, dtype and
#   device; kernels do nothing on the simulator), oom caught|none|other (a
#   tensor larger than the device raises ResourceExhaustedError),
#   peak_bytes (tf.config.experimental.get_memory_info: the peak of what
#   TensorFlow's allocator handed out)
#
# and exits 0 when each step did what TensorFlow documents. With --die it
# then asks for 16 GiB at the line marked DIE, and dies of the uncaught
# ResourceExhaustedError.

import sys

import numpy as np
import tensorflow as tf


def fact(key, value):
    print("# fact %s %s" % (key, value), flush=True)


def main():
    fact("version", tf.__version__)
    gpus = tf.config.list_physical_devices("GPU")
    fact("gpus", len(gpus))
    if not gpus:
        return 1
    fact("growth", "on" if tf.config.experimental.get_memory_growth(gpus[0]) else "off")
    host = np.arange(1 << 20, dtype=np.float32)
    with tf.device("/GPU:0"):
        x = tf.constant(host)
    fact("placed", x.device.split("/")[-1])
    # Copies move real bytes on the simulator.
    fact("roundtrip", "ok" if np.array_equal(x.numpy(), host) else "bad")
    with tf.device("/GPU:0"):
        y = tf.identity(x)
    good = y.device.endswith("GPU:0") and np.array_equal(y.numpy(), host)
    fact("copy", "ok" if good else "bad")
    with tf.device("/GPU:0"):
        z = x * 2.0 + 1.0
    # Kernels do nothing on the simulator: only the result's form is checked.
    good = z.shape == x.shape and z.dtype == x.dtype and z.device.endswith("GPU:0")
    fact("elementwise", "ok" if good else "bad")
    # More than the device has: TensorFlow's allocator refuses it.
    try:
        with tf.device("/GPU:0"):
            big = tf.zeros((1 << 32,), tf.float32)
        big.numpy()
        fact("oom", "none")
    except tf.errors.ResourceExhaustedError:
        fact("oom", "caught")
    except tf.errors.OpError as error:
        fact("oom", "other:%s" % type(error).__name__)
    fact("peak_bytes", tf.config.experimental.get_memory_info("GPU:0")["peak"])
    if "--die" in sys.argv:
        with tf.device("/GPU:0"):
            tf.zeros((1 << 32,), tf.float32).numpy()  # DIE
    return 0


if __name__ == "__main__":
    sys.exit(main())
