# SPDX-License-Identifier: MIT
#
# gpu_ctypes.py - the CUDA runtime from Python with ctypes alone, for the
# examples that reproduce GPU memory failures without PyTorch or
# TensorFlow: on the simulated GPU (cudasim-env) or on a real one.
#
#   from gpu_ctypes import Runtime, CudaError
#   rt = Runtime()
#   ptr = rt.malloc(1 << 20)
#   rt.free(ptr)
#
# Every call raises CudaError (with the error's name and code) when it
# fails, as frameworks turn a failed cudaMalloc into "CUDA out of memory".

import ctypes

HOST_TO_DEVICE = 1
DEVICE_TO_HOST = 2
MIB = 1 << 20


class CudaError(Exception):
    def __init__(self, call, code, name):
        super().__init__("%s failed: %s (%d)" % (call, name, code))
        self.call = call
        self.code = code
        self.name = name


class Runtime:
    """The few runtime calls the examples use, checked."""

    def __init__(self, soname="libcudart.so.13"):
        self.lib = ctypes.CDLL(soname)
        self.lib.cudaGetErrorName.restype = ctypes.c_char_p
        self.lib.cudaGetErrorName.argtypes = [ctypes.c_int]
        void_pp = ctypes.POINTER(ctypes.c_void_p)
        size_p = ctypes.POINTER(ctypes.c_size_t)
        for name, argtypes in (
            ("cudaMalloc", [void_pp, ctypes.c_size_t]),
            ("cudaFree", [ctypes.c_void_p]),
            ("cudaMallocHost", [void_pp, ctypes.c_size_t]),
            ("cudaFreeHost", [ctypes.c_void_p]),
            ("cudaMemcpy", [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]),
            ("cudaMemset", [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]),
            ("cudaMemGetInfo", [size_p, size_p]),
            ("cudaDeviceSynchronize", []),
            ("cudaGetDeviceCount", [ctypes.POINTER(ctypes.c_int)]),
        ):
            function = getattr(self.lib, name)
            function.argtypes = argtypes
            function.restype = ctypes.c_int

    def _check(self, call, code):
        if code != 0:
            raise CudaError(call, code, self.lib.cudaGetErrorName(code).decode())

    def device_count(self):
        count = ctypes.c_int()
        self._check("cudaGetDeviceCount", self.lib.cudaGetDeviceCount(ctypes.byref(count)))
        return count.value

    def malloc(self, size):
        ptr = ctypes.c_void_p()
        self._check("cudaMalloc", self.lib.cudaMalloc(ctypes.byref(ptr), size))
        return ptr

    def free(self, ptr):
        self._check("cudaFree", self.lib.cudaFree(ptr))

    def malloc_host(self, size):
        ptr = ctypes.c_void_p()
        self._check("cudaMallocHost", self.lib.cudaMallocHost(ctypes.byref(ptr), size))
        return ptr

    def free_host(self, ptr):
        self._check("cudaFreeHost", self.lib.cudaFreeHost(ptr))

    def upload(self, device, host, size):
        self._check("cudaMemcpy", self.lib.cudaMemcpy(device, host, size, HOST_TO_DEVICE))

    def download(self, host, device, size):
        self._check("cudaMemcpy", self.lib.cudaMemcpy(host, device, size, DEVICE_TO_HOST))

    def memset(self, device, value, size):
        self._check("cudaMemset", self.lib.cudaMemset(device, value, size))

    def mem_info(self):
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        self._check("cudaMemGetInfo",
                    self.lib.cudaMemGetInfo(ctypes.byref(free), ctypes.byref(total)))
        return free.value, total.value

    def synchronize(self):
        self._check("cudaDeviceSynchronize", self.lib.cudaDeviceSynchronize())
