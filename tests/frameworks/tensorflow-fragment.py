#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# tensorflow-fragment.py - TensorFlow's BFC allocator out of memory with
# room in its pool, in pieces: a 64 MiB pool (a logical device with
# memory_limit=64), eight 6 MiB tensors in a row, every other one
# dropped, then a 20 MiB tensor. 24 MiB in use of 64, but no free piece
# of 20 MiB: the largest is the 16 MiB after the last tensor. Prints
# "# fact KEY VALUE" lines:
#
#   limit_bytes (the pool asked for), in_use_bytes
#   (tf.config.experimental.get_memory_info's current before the last
#   request), requested_bytes (the last request)
#
# and dies of the uncaught ResourceExhaustedError at the line marked DIE.

import tensorflow as tf

MIB = 1 << 20


def fact(key, value):
    print("# fact %s %s" % (key, value), flush=True)


def main():
    gpus = tf.config.list_physical_devices("GPU")
    tf.config.set_logical_device_configuration(
        gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=64)])
    fact("limit_bytes", 64 * MIB)
    with tf.device("/GPU:0"):
        blocks = [tf.zeros((6 * MIB // 4,), tf.float32) for _ in range(8)]
        for block in blocks:
            block.numpy()
        del blocks[0::2]  # holes of 6 MiB between the tensors kept
        fact("in_use_bytes", tf.config.experimental.get_memory_info("GPU:0")["current"])
        fact("requested_bytes", 20 * MIB)
        tf.zeros((20 * MIB // 4,), tf.float32).numpy()  # DIE


if __name__ == "__main__":
    main()
