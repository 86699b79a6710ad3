#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# cudart_ctypes.py - a Python program that drives the GPU through the CUDA
# runtime with ctypes alone, the way framework internals end up doing:
# device and pinned allocations, uploads from a Python buffer (pageable
# memory) and from pinned memory, downloads, a memset, and the frees.
# Prints each step.
#
#   python3 cudart_ctypes.py [ROUNDS]
#
# Needs libcudart.so.13 on the library path; on the simulated GPU:
#   cudasim-env python3 cudart_ctypes.py

import ctypes
import sys

CUDA_MEMCPY_HOST_TO_DEVICE = 1
CUDA_MEMCPY_DEVICE_TO_HOST = 2
BYTES = 1 << 20


class CudaError(Exception):
    pass


def load_runtime():
    try:
        runtime = ctypes.CDLL("libcudart.so.13")
    except OSError as error:
        sys.stderr.write("cannot load libcudart.so.13: %s\n" % error)
        sys.exit(1)
    runtime.cudaGetErrorName.restype = ctypes.c_char_p
    for name, argtypes in (
        ("cudaMalloc", [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]),
        ("cudaMallocHost", [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]),
        ("cudaFree", [ctypes.c_void_p]),
        ("cudaFreeHost", [ctypes.c_void_p]),
        ("cudaMemcpy", [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]),
        ("cudaMemset", [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]),
        ("cudaDeviceSynchronize", []),
        ("cudaGetDeviceCount", [ctypes.POINTER(ctypes.c_int)]),
    ):
        getattr(runtime, name).argtypes = argtypes
        getattr(runtime, name).restype = ctypes.c_int
    return runtime


def check(runtime, result, what):
    if result != 0:
        name = runtime.cudaGetErrorName(result).decode()
        raise CudaError("%s failed: %s (%d)" % (what, name, result))


def one_round(runtime, pageable, pinned):
    device = ctypes.c_void_p()
    check(runtime, runtime.cudaMalloc(ctypes.byref(device), BYTES), "cudaMalloc")
    print("cudaMalloc %d bytes" % BYTES)
    check(runtime, runtime.cudaMemcpy(device, pageable, BYTES, CUDA_MEMCPY_HOST_TO_DEVICE),
          "cudaMemcpy")
    print("cudaMemcpy HtoD %d bytes from a Python buffer (pageable)" % BYTES)
    check(runtime, runtime.cudaMemcpy(device, pinned, BYTES, CUDA_MEMCPY_HOST_TO_DEVICE),
          "cudaMemcpy")
    print("cudaMemcpy HtoD %d bytes from pinned memory" % BYTES)
    check(runtime, runtime.cudaMemset(device, 0, BYTES // 2), "cudaMemset")
    print("cudaMemset %d bytes" % (BYTES // 2))
    check(runtime, runtime.cudaMemcpy(pageable, device, BYTES, CUDA_MEMCPY_DEVICE_TO_HOST),
          "cudaMemcpy")
    print("cudaMemcpy DtoH %d bytes to a Python buffer, first byte %d" % (BYTES, pageable[0][0]))
    check(runtime, runtime.cudaFree(device), "cudaFree")
    print("cudaFree")


def main(argv):
    rounds = int(argv[1]) if len(argv) > 1 else 1
    runtime = load_runtime()
    count = ctypes.c_int()
    check(runtime, runtime.cudaGetDeviceCount(ctypes.byref(count)), "cudaGetDeviceCount")
    print("%d device(s)" % count.value)

    pageable = ctypes.create_string_buffer(b"\x01" * BYTES, BYTES)
    pinned = ctypes.c_void_p()
    check(runtime, runtime.cudaMallocHost(ctypes.byref(pinned), BYTES), "cudaMallocHost")
    print("cudaMallocHost %d bytes" % BYTES)
    for _ in range(rounds):
        one_round(runtime, pageable, pinned)
    check(runtime, runtime.cudaFreeHost(pinned), "cudaFreeHost")
    print("cudaFreeHost")
    check(runtime, runtime.cudaDeviceSynchronize(), "cudaDeviceSynchronize")
    print("done")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except CudaError as error:
        sys.stderr.write("%s\n" % error)
        sys.exit(1)
