#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# python-leaks.py - a Python program that drives the CUDA runtime with
# ctypes (which releases the GIL around each call) and allocates from
# four functions: leak_here keeps its memory, freed_here frees it,
# thread_leak keeps its memory from a thread of its own, fail_here asks
# for more than any GPU has. Each allocating line ends with a comment
# naming its function, which tests/cli/record-python-stacks.sh finds in
# this file to know the line the report must name.
#
#   python-leaks.py [ROUNDS]

import ctypes
import sys
import threading

MIB = 1 << 20


def load_runtime():
    runtime = ctypes.CDLL("libcudart.so.13")
    runtime.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    runtime.cudaMalloc.restype = ctypes.c_int
    runtime.cudaFree.argtypes = [ctypes.c_void_p]
    runtime.cudaFree.restype = ctypes.c_int
    return runtime


def check(result, what):
    if result != 0:
        sys.stderr.write("%s failed: %d\n" % (what, result))
        sys.exit(1)


def leak_here(runtime, kept):
    ptr = ctypes.c_void_p()
    check(runtime.cudaMalloc(ctypes.byref(ptr), MIB), "cudaMalloc")  # site of leak_here
    kept.append(ptr)


def freed_here(runtime):
    ptr = ctypes.c_void_p()
    check(runtime.cudaMalloc(ctypes.byref(ptr), 2 * MIB), "cudaMalloc")  # site of freed_here
    check(runtime.cudaFree(ptr), "cudaFree")


def thread_leak(runtime, kept):
    ptr = ctypes.c_void_p()
    check(runtime.cudaMalloc(ctypes.byref(ptr), 3 * MIB), "cudaMalloc")  # site of thread_leak
    kept.append(ptr)


def fail_here(runtime):
    ptr = ctypes.c_void_p()
    result = runtime.cudaMalloc(ctypes.byref(ptr), 1 << 44)  # site of fail_here
    print("huge cudaMalloc returned %d" % result, flush=True)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    runtime = load_runtime()
    kept = []
    for _ in range(rounds):
        leak_here(runtime, kept)
        freed_here(runtime)
    worker = threading.Thread(target=thread_leak, args=(runtime, kept))
    worker.start()
    worker.join()
    fail_here(runtime)
    print("kept %d allocations" % len(kept), flush=True)


if __name__ == "__main__":
    main()
