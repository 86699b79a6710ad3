#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# python-stack-loop.py ROUNDS DEPTH - a Python-heavy loop that allocates:
# DEPTH Python frames deep, ROUNDS times some pure Python work then a
# cudaMalloc and a cudaFree through ctypes, for the cost of the Python
# frames the tracer reads at each (bench/stack-bench.sh).

import ctypes
import sys


def work(n):
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def nest(runtime, depth, rounds):
    if depth > 0:
        return nest(runtime, depth - 1, rounds)
    ptr = ctypes.c_void_p()
    for _ in range(rounds):
        work(200)
        if runtime.cudaMalloc(ctypes.byref(ptr), 1 << 20) != 0:
            return 1
        if runtime.cudaFree(ptr) != 0:
            return 1
    return 0


def main():
    rounds, depth = int(sys.argv[1]), int(sys.argv[2])
    runtime = ctypes.CDLL("libcudart.so.13")
    runtime.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    runtime.cudaFree.argtypes = [ctypes.c_void_p]
    sys.exit(nest(runtime, depth, rounds))


if __name__ == "__main__":
    main()
