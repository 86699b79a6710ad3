#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# tensorflow_memory.py - TensorFlow's GPU memory, on a real GPU, for
# `cudatrace record`. Needs TensorFlow with CUDA.
#
#   cudatrace record -- python3 tensorflow_memory.py [--growth] [--pageable]
#
# Without --growth, TensorFlow takes nearly all the GPU's memory when it
# starts (one huge allocation by its BFC allocator), whatever the model
# needs: a second process on the same GPU then fails at once, and
# cudatrace's report shows that memory held from the first second. With
# --growth (tf.config.experimental.set_memory_growth), it takes memory as
# the model needs it.
#
# The model is fed by tf.data from NumPy arrays; --pageable feeds it from a
# Python generator, one small batch at a time, which shows as a storm of
# small pageable host-to-device copies in the transfer hotspots.
# README.md says what each run's report shows.

import argparse
import sys


def main():
    parser = argparse.ArgumentParser(description="TensorFlow GPU memory, traced")
    parser.add_argument("--growth", action="store_true", help="memory growth on")
    parser.add_argument("--pageable", action="store_true", help="feed from a generator")
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()

    import numpy as np
    import tensorflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        sys.exit("tensorflow_memory.py: TensorFlow sees no GPU")
    if args.growth:
        # Must happen before the GPU is first used.
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)

    features = np.random.rand(20000, 1024).astype("float32")
    labels = np.random.randint(0, 10, 20000)
    if args.pageable:
        def batches():
            for start in range(0, len(features), 32):
                yield features[start:start + 32], labels[start:start + 32]
        data = tf.data.Dataset.from_generator(
            batches, output_signature=(tf.TensorSpec((None, 1024), tf.float32),
                                       tf.TensorSpec((None,), tf.int64)))
    else:
        data = tf.data.Dataset.from_tensor_slices((features, labels)).batch(256).prefetch(2)

    model = tf.keras.Sequential([
        tf.keras.layers.Dense(4096, activation="relu"),
        tf.keras.layers.Dense(10),
    ])
    model.compile(optimizer="sgd",
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(data, epochs=args.epochs, verbose=2)
    info = tf.config.experimental.get_memory_info("GPU:0")
    print("TensorFlow: current %.0f MiB, peak %.0f MiB" %
          (info["current"] / 2**20, info["peak"] / 2**20))


if __name__ == "__main__":
    main()
