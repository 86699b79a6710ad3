#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# last-words.py - a Python program that works on the GPU (workload.py's
# steps), then ends as the tests of record's relay of its standard error
# ask, printing on stderr what the frameworks print as they run out of
# memory, in their formats:
#
#   last-words.py MODE
#
#   raise        raises ValueError("bad batch shape") uncaught, at the line
#                marked RAISE-HERE
#   torch        raises torch.OutOfMemoryError with PyTorch's message
#                (c10/cuda/CUDACachingAllocator.cpp), at TORCH-HERE
#   torch-print  prints PyTorch's message alone (no traceback), exits 1
#   tensorflow   logs TensorFlow's allocator warning and statistics
#                (bfc_allocator.cc), then raises its ResourceExhaustedError
#   jax          raises XlaRuntimeError with XLA's RESOURCE_EXHAUSTED message
#   tty [BASE]   prints on stdout whether fd 2 is a terminal, and its
#                window size; a coloured line on stderr; with BASE, then
#                creates BASE.ready, waits for BASE.gate and prints the
#                window size again; exits 0
#   bytes N      writes N bytes of every value (0-255, a fixed pattern) to
#                stderr, without a newline at the end; exits 0
#   killed       writes half a line to stderr, then kills itself (SIGKILL)
#   children     a child and a grandchild write to stderr too; exits 3
#
# The sizes in the messages are exact in the units printed (1.25 GiB is
# 1342177280 bytes), so that the report's figures can be checked exactly.

import os
import signal
import subprocess
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workload  # noqa: E402

TORCH_MESSAGE = (
    "CUDA out of memory. Tried to allocate 1.25 GiB. GPU 0 has a total capacity of "
    "4.00 GiB of which 20.00 MiB is free. Including non-PyTorch memory, this process "
    "has 3.97 GiB memory in use. Of the allocated memory 704.00 MiB is allocated by "
    "PyTorch, and 2.50 GiB is reserved by PyTorch but unallocated. If reserved but "
    "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF="
    "expandable_segments:True to avoid fragmentation.  See documentation for Memory "
    "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def exception_class(module, name, base=RuntimeError):
    """A class Python names MODULE.NAME in a traceback, as the framework's own."""
    sys.modules.setdefault(module, types.ModuleType(module))
    return type(name, (base,), {"__module__": module})


def work():
    runtime = workload.load_runtime()
    host = workload.ctypes.create_string_buffer(64 << 10)
    for index in range(2):
        workload.step(runtime, index, False, [], host)
    workload.check(runtime.cudaDeviceSynchronize(), "cudaDeviceSynchronize")


def train_step(batch):
    raise ValueError("bad batch shape: %r" % (batch,))  # RAISE-HERE


def torch_oom():
    error = exception_class("torch", "OutOfMemoryError")
    raise error(TORCH_MESSAGE)  # TORCH-HERE


def tensorflow_oom():
    sys.stderr.write(
        "2026-12-02 06:00:00.000000: W tensorflow/core/common_runtime/bfc_allocator.cc:"
        "479] Allocator (GPU_0_bfc) ran out of memory trying to allocate 256.00MiB "
        "(rounded to 268435456)requested by op MatMul\n"
        "If the cause is memory fragmentation maybe the environment variable "
        "'TF_GPU_ALLOCATOR=cuda_malloc_async' will improve the situation. \n"
        "Current allocation summary follows.\n"
        "2026-12-02 06:00:00.000100: I tensorflow/core/common_runtime/bfc_allocator.cc:"
        "1107] Stats: \n"
        "Limit:                      3087007744\n"
        "InUse:                      2952790016\n"
        "MaxInUse:                   2952790016\n"
        "NumAllocs:                          42\n"
        "MaxAllocSize:                268435456\n")
    error = exception_class("tensorflow.python.framework.errors_impl",
                            "ResourceExhaustedError")
    raise error("{{function_node __wrapped__MatMul_device_/job:localhost/replica:0/task:0/"
                "device:GPU:0}} OOM when allocating tensor with shape[8192,8192] and type "
                "float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator "
                "GPU_0_bfc [Op:MatMul]")


def jax_oom():
    error = exception_class("jaxlib.xla_extension", "XlaRuntimeError")
    raise error("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 268435456 "
                "bytes.")


def print_size(what):
    size = os.get_terminal_size(2) if os.isatty(2) else None
    print("%s: %s" % (what, ("%dx%d" % (size.columns, size.lines)) if size else "none"),
          flush=True)


def tty(base):
    print("stderr isatty: %s" % os.isatty(2), flush=True)
    print_size("stderr size")
    sys.stderr.write("\x1b[31mred\x1b[0m on a terminal\n")
    sys.stderr.flush()
    if base:
        open(base + ".ready", "w").close()
        workload.wait_for(base + ".gate")
        print_size("stderr size after")


def pattern(count):
    return bytes(i * 7 % 256 for i in range(count))


def children():
    sys.stderr.write("parent says hello\n")
    sys.stderr.flush()
    code = ("import subprocess, sys; sys.stderr.write('child says hello\\n'); "
            "sys.stderr.flush(); subprocess.run([sys.executable, '-c', "
            "\"import sys; sys.stderr.write('grandchild says hello\\\\n')\"])")
    subprocess.run([sys.executable, "-c", code], check=True)
    sys.stderr.write("parent says goodbye\n")
    sys.exit(3)


def main():
    mode = sys.argv[1]
    if mode == "bytes":
        data = pattern(int(sys.argv[2]))
        os.write(1, b"")
        with os.fdopen(2, "wb", closefd=False) as err:
            err.write(data)
        return
    work()
    if mode == "raise":
        train_step([3, 224])
    elif mode == "torch":
        torch_oom()
    elif mode == "torch-print":
        sys.stderr.write(TORCH_MESSAGE + "\n")
        sys.exit(1)
    elif mode == "tensorflow":
        tensorflow_oom()
    elif mode == "jax":
        jax_oom()
    elif mode == "tty":
        tty(sys.argv[2] if len(sys.argv) > 2 else None)
    elif mode == "killed":
        sys.stderr.write("half a li")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    elif mode == "children":
        children()


if __name__ == "__main__":
    main()
