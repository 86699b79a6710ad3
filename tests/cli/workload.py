#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# workload.py - a Python program that drives the GPU through the CUDA
# runtime with ctypes, for the tests of `cudatrace record`: it can wait for
# a signal file before working (so that a live viewer attaches first),
# pause when done (so that a test can kill it there), keep memory (a leak)
# and exit with a given status.
#
#   workload.py [--steps N] [--leak] [--ready FILE] [--gate FILE]
#               [--pause] [--exit STATUS] [--fail-alloc] [--host-mib N]
#               [--host-grow N] [--host-hold SECONDS] [--segfault] [--kernel]
#
# Each step allocates 2 MiB and frees it, uploads 64 KiB from a Python
# buffer (pageable memory), and with --leak keeps a 1 MiB allocation.
# --ready FILE is created once CUDA is initialised; --gate FILE is waited
# for (60 s at most) before the first step; --pause prints "paused" and
# sleeps until killed; --fail-alloc ends with an allocation that fails.
# --host-mib N keeps N MiB of host memory, written, before the steps;
# --host-grow N adds N MiB more at each step after them, without end (a
# program that the OOM killer stops); each prints "host N MiB" with the
# total it holds; --host-hold waits that long once it holds --host-mib.
# --kernel launches a kernel (driver API, PTX) and
# synchronises, exiting with 1 when that fails; --segfault dereferences
# NULL at the end.

import argparse
import ctypes
import os
import sys
import time

MIB = 1 << 20


def load_runtime():
    runtime = ctypes.CDLL("libcudart.so.13")
    for name, argtypes in (
        ("cudaMalloc", [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]),
        ("cudaFree", [ctypes.c_void_p]),
        ("cudaMemcpy", [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]),
        ("cudaDeviceSynchronize", []),
        ("cudaGetDeviceCount", [ctypes.POINTER(ctypes.c_int)]),
    ):
        getattr(runtime, name).argtypes = argtypes
        getattr(runtime, name).restype = ctypes.c_int
    return runtime


def check(result, what):
    if result != 0:
        sys.stderr.write("%s failed: %d\n" % (what, result))
        sys.exit(1)


def malloc(runtime, size):
    ptr = ctypes.c_void_p()
    result = runtime.cudaMalloc(ctypes.byref(ptr), size)
    return result, ptr


def step(runtime, index, leak, kept, host):
    result, scratch = malloc(runtime, 2 * MIB)
    check(result, "cudaMalloc")
    check(runtime.cudaMemcpy(scratch, host, 64 << 10, 1), "cudaMemcpy")
    check(runtime.cudaFree(scratch), "cudaFree")
    if leak:
        result, ptr = malloc(runtime, MIB)
        check(result, "cudaMalloc")
        kept.append(ptr)
    print("step %d" % index, flush=True)


PTX = b""".version 8.0
.target sm_90
.address_size 64
.visible .entry touch()
{
    ret;
}
"""


def launch_kernel(runtime):
    driver = ctypes.CDLL("libcuda.so.1")
    module = ctypes.c_void_p()
    function = ctypes.c_void_p()
    driver.cuModuleLoadData.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p]
    driver.cuModuleGetFunction.argtypes = [
        ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p]
    driver.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    check(runtime.cudaFree(None), "cudaFree")
    check(driver.cuModuleLoadData(ctypes.byref(module), PTX), "cuModuleLoadData")
    check(driver.cuModuleGetFunction(ctypes.byref(function), module, b"touch"),
          "cuModuleGetFunction")
    check(driver.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, None, None, None),
          "cuLaunchKernel")
    print("kernel launched", flush=True)


def hold_host(held, mib):
    block = bytearray(mib * MIB)
    for offset in range(0, len(block), 4096):
        block[offset] = 1
    held.append(block)
    print("host %d MiB" % (sum(len(b) for b in held) // MIB), flush=True)


def wait_for(path):
    deadline = time.monotonic() + 60
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            sys.stderr.write("%s never appeared\n" % path)
            sys.exit(1)
        time.sleep(0.05)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--leak", action="store_true")
    parser.add_argument("--ready")
    parser.add_argument("--gate")
    parser.add_argument("--pause", action="store_true")
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--fail-alloc", action="store_true")
    parser.add_argument("--host-mib", type=int, default=0)
    parser.add_argument("--host-grow", type=int, default=0)
    parser.add_argument("--host-hold", type=float, default=0)
    parser.add_argument("--segfault", action="store_true")
    parser.add_argument("--kernel", action="store_true")
    args = parser.parse_args()

    runtime = load_runtime()
    count = ctypes.c_int()
    check(runtime.cudaGetDeviceCount(ctypes.byref(count)), "cudaGetDeviceCount")
    if args.ready:
        open(args.ready, "w").close()
    if args.gate:
        wait_for(args.gate)
    host = ctypes.create_string_buffer(64 << 10)
    kept = []
    held = []
    if args.host_mib:
        hold_host(held, args.host_mib)
        time.sleep(args.host_hold)
    for index in range(args.steps):
        step(runtime, index, args.leak, kept, host)
    while args.host_grow:
        hold_host(held, args.host_grow)
        time.sleep(0.02)
    if args.kernel:
        launch_kernel(runtime)
    if args.fail_alloc:
        result, _ = malloc(runtime, 1 << 44)
        print("huge cudaMalloc returned %d" % result, flush=True)
    check(runtime.cudaDeviceSynchronize(), "cudaDeviceSynchronize")
    if args.segfault:
        ctypes.string_at(0)
    if args.pause:
        print("paused", flush=True)
        while True:
            time.sleep(60)
    sys.exit(args.exit)


if __name__ == "__main__":
    main()
