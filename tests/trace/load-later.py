#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# load-later.py - a Python process that starts CUDA through the runtime
# (libcudart.so.13 from the library path), then loads more libraries, as
# later imports of other packages would, and asks each the version it
# reports of itself.
#
#   load-later.py [--wait S] [--before] LIBRARY...
#
# With --before it loads libcupti.so.13 from the library path, then the
# LIBRARYs, before it starts CUDA (as a framework loads its libraries at
# import), and asks them no version. It stays S seconds (default 0.5)
# after the loads, so that the tracer's session watcher looks at the
# loaded objects again. Prints "# fact pid=N", then "# fact version PATH
# VERSION" for the runtime and each LIBRARY: cudaRuntimeGetVersion's
# number, or nvrtcVersion's MAJOR.MINOR, or "-" when it has neither.

import ctypes
import os
import sys
import time


def reported_version(lib):
    """What the library says of its own version, as cudatrace reads it."""
    if hasattr(lib, "cudaRuntimeGetVersion"):
        version = ctypes.c_int(0)
        if lib.cudaRuntimeGetVersion(ctypes.byref(version)) == 0:
            return str(version.value)
    if hasattr(lib, "nvrtcVersion"):
        major, minor = ctypes.c_int(0), ctypes.c_int(0)
        if lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)) == 0:
            return "%d.%d" % (major.value, minor.value)
    return "-"


def start_cuda():
    runtime = ctypes.CDLL("libcudart.so.13")
    runtime.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    runtime.cudaFree.argtypes = [ctypes.c_void_p]
    ptr = ctypes.c_void_p()
    if runtime.cudaMalloc(ctypes.byref(ptr), 1 << 20) != 0:
        return None
    runtime.cudaFree(ptr)
    return runtime


def main(args):
    wait = 0.5
    if args[:1] == ["--wait"] and len(args) >= 2:
        wait = float(args[1])
        args = args[2:]
    before = args[:1] == ["--before"]
    if before:
        args = args[1:]
    if not args:
        sys.stderr.write("usage: load-later.py [--wait S] [--before] LIBRARY...\n")
        return 2
    print("# fact pid=%d" % os.getpid())
    if before:
        for path in ["libcupti.so.13"] + args:
            ctypes.CDLL(path)
        args = []
    runtime = start_cuda()
    if runtime is None:
        sys.stderr.write("cudaMalloc failed\n")
        return 1
    print("# fact version libcudart.so.13 %s" % reported_version(runtime))
    for path in args:
        print("# fact version %s %s" % (path, reported_version(ctypes.CDLL(path))))
    sys.stdout.flush()
    time.sleep(wait)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
