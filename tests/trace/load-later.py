#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# load-later.py - a Python process that starts CUDA through the runtime
# (libcudart.so.13 from the library path), then loads another copy of a
# library from LIBRARY, as an import of a second package would, and asks
# that copy its version.
#
#   load-later.py LIBRARY [WAIT_S]
#
# It stays WAIT_S seconds (default 0.5) after the load, so that the
# tracer's session watcher looks at the loaded objects again. Prints
# "# fact pid=N", "# fact first=VERSION" and "# fact later=VERSION", the
# versions cudaRuntimeGetVersion of each copy reports (0 when the copy
# has no such function).

import ctypes
import os
import sys
import time


def runtime_version(lib):
    version = ctypes.c_int(0)
    try:
        get = lib.cudaRuntimeGetVersion
    except AttributeError:
        return 0
    get.argtypes = [ctypes.POINTER(ctypes.c_int)]
    get.restype = ctypes.c_int
    return version.value if get(ctypes.byref(version)) == 0 else -1


def main():
    if len(sys.argv) not in (2, 3):
        sys.stderr.write("usage: load-later.py LIBRARY [WAIT_S]\n")
        return 2
    print("# fact pid=%d" % os.getpid())
    first = ctypes.CDLL("libcudart.so.13")
    first.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    first.cudaFree.argtypes = [ctypes.c_void_p]
    ptr = ctypes.c_void_p()
    if first.cudaMalloc(ctypes.byref(ptr), 1 << 20) != 0:
        sys.stderr.write("cudaMalloc failed\n")
        return 1
    first.cudaFree(ptr)
    print("# fact first=%d" % runtime_version(first))
    later = ctypes.CDLL(sys.argv[1])
    print("# fact later=%d" % runtime_version(later))
    sys.stdout.flush()
    time.sleep(float(sys.argv[2]) if len(sys.argv) == 3 else 0.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
