#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# python-copies.py - a Python program that copies to the device with
# ctypes from three places: load_batches and load_weights through one
# shared helper (upload), interleaved call by call with the same buffer
# and size, so that only the Python line tells them apart, and
# thread_copies directly, from a thread of its own. Each line that
# decides a copy ends with "# copies of FUNCTION"; the program prints
# "copies FUNCTION N" for each, which tests/cli/record-python-copies.sh
# holds the report's transfer hotspots to.
#
#   python-copies.py [ROUNDS]

import ctypes
import sys
import threading

KIB = 1 << 10
HTOD = 1


def load_runtime():
    runtime = ctypes.CDLL("libcudart.so.13")
    runtime.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    runtime.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                   ctypes.c_int]
    runtime.cudaFree.argtypes = [ctypes.c_void_p]
    return runtime


def check(result, what):
    if result != 0:
        sys.stderr.write("%s failed: %d\n" % (what, result))
        sys.exit(1)


def upload(runtime, device, host):
    check(runtime.cudaMemcpy(device, host, 4 * KIB, HTOD), "cudaMemcpy")


def load_batches(runtime, device, host, counts):
    upload(runtime, device, host)  # copies of load_batches
    counts["load_batches"] += 1


def load_weights(runtime, device, host, counts):
    upload(runtime, device, host)  # copies of load_weights
    counts["load_weights"] += 1


def thread_copies(runtime, device, host, rounds, counts):
    for _ in range(rounds):
        check(runtime.cudaMemcpy(device, host, 4 * KIB, HTOD), "cudaMemcpy")  # copies of thread_copies
        counts["thread_copies"] += 1


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    runtime = load_runtime()
    device = ctypes.c_void_p()
    check(runtime.cudaMalloc(ctypes.byref(device), 64 * KIB), "cudaMalloc")
    host = ctypes.create_string_buffer(4 * KIB)
    counts = {"load_batches": 0, "load_weights": 0, "thread_copies": 0}
    for index in range(rounds):
        for _ in range(2):
            load_batches(runtime, device, host, counts)
        if index % 2 == 0:
            load_weights(runtime, device, host, counts)
    thread = threading.Thread(target=thread_copies, args=(runtime, device, host, rounds, counts))
    thread.start()
    thread.join()
    check(runtime.cudaFree(device), "cudaFree")
    for name, count in sorted(counts.items()):
        print("copies %s %d" % (name, count))


if __name__ == "__main__":
    main()
