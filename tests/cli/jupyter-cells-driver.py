#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# jupyter-cells-driver.py - run cells in a Jupyter kernel installed by
# `cudatrace jupyter install`, as a notebook server would, then kill the
# kernel with SIGKILL in the middle of its last cell, for
# tests/cli/record-jupyter-cells.sh.
#
#   jupyter-cells-driver.py KERNEL_NAME LOG CELLS.json
#
# The kernel's stderr (the server's log) goes to LOG. CELLS.json gets what
# each cell did, from the cell's own printout (a thread one cell starts
# allocates once that cell ended, printing nothing): its execution count as the
# kernel gave it, its source, whether it raised, the device pointers it
# allocated (with their sizes) and freed; and the pids of `cudatrace
# record` and of the kernel, and record's exit status.
# Needs ipykernel and jupyter_client (Debian: python3-ipykernel,
# python3-jupyter-client) for this Python.

import importlib.util
import json
import os
import signal
import sys
import time

from jupyter_client.manager import KernelManager

# What both drivers do alike, from jupyter-driver.py.
_spec = importlib.util.spec_from_file_location(
    "jupyter_driver", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   "jupyter-driver.py"))
jupyter_driver = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jupyter_driver)
children = jupyter_driver.children

# In [1] uses no CUDA: the cells after it are marked whether or not CUDA
# was initialised when they began.
SETUP = """
import ctypes, time
rt = ctypes.CDLL("libcudart.so.13")
rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
rt.cudaFree.argtypes = [ctypes.c_void_p]
def alloc(size):
    ptr = ctypes.c_void_p()
    assert rt.cudaMalloc(ctypes.byref(ptr), size) == 0
    print("alloc %#x %d" % (ptr.value, size), flush=True)
    return ptr.value
def free(ptr):
    assert rt.cudaFree(ctypes.c_void_p(ptr)) == 0
    print("free %#x" % ptr, flush=True)
"""
CELLS = [
    SETUP,
    # Its first line that is not blank is its third.
    "\n   \n  a = [alloc(1 << 20) for _ in range(3)]\n",
    "b = alloc(5 << 20)\ntmp = alloc(2 << 20)\nfree(tmp)\n",
    # Frees memory of In [2].
    "free(a.pop())\n",
    "c = alloc(4 << 20)\nraise ValueError('on purpose')\n",
    "print('no GPU memory here')\n",
    # A thread allocates once the cell has ended (after the cells script's
    # post_run_cell: it was registered first), quietly: memory outside cells.
    "import threading\n"
    "done = threading.Event()\n"
    "get_ipython().events.register('post_run_cell', lambda result: done.set())\n"
    "def quiet():\n"
    "    done.wait()\n"
    "    assert rt.cudaMalloc(ctypes.byref(ctypes.c_void_p()), (3 << 20) + 512) == 0\n"
    "worker = threading.Thread(target=quiet)\n"
    "worker.start()\n",
]
# Run silent (no In [N], no cell marks) after the cells above.
JOIN = "worker.join()"
# The kernel is killed while it runs.
LAST = "d = alloc(6 << 20)\nprint('allocated', flush=True)\ntime.sleep(120)\n"


class Cell:
    def __init__(self, source):
        self.source = source
        self.count = None
        self.status = None
        self.allocated = []
        self.freed = []
        self.error = None  # [ename, evalue] as the kernel reported the exception

    def output(self, msg):
        if msg["msg_type"] == "execute_input":
            self.count = msg["content"]["execution_count"]
        elif msg["msg_type"] == "stream":
            for line in msg["content"]["text"].splitlines():
                words = line.split()
                if words[:1] == ["alloc"]:
                    self.allocated.append([int(words[1], 16), int(words[2])])
                elif words[:1] == ["free"]:
                    self.freed.append(int(words[1], 16))
                elif line == "allocated":
                    self.status = "running"
        elif msg["msg_type"] == "error":
            self.status = "failed"
            self.error = [msg["content"]["ename"], msg["content"]["evalue"]]

    def as_dict(self):
        return {"count": self.count, "source": self.source, "status": self.status,
                "allocated": self.allocated, "freed": self.freed, "error": self.error}


def run_until_running(client, cell, timeout=60):
    """Sends the cell and returns once it printed that it allocated."""
    msg_id = client.execute(cell.source, stop_on_error=False)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and cell.status != "running":
        msg = client.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") == msg_id:
            cell.output(msg)


def main():
    name, log_path, out_path = sys.argv[1:4]
    log = open(log_path, "w")
    manager = KernelManager(kernel_name=name)
    manager.start_kernel(stderr=log, stdout=log)
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    cells = []
    for source in CELLS:
        cell = Cell(source)
        # The kernel would abort the cells sent just after one that raised.
        reply = client.execute_interactive(source, timeout=60, output_hook=cell.output,
                                           stop_on_error=False)
        cell.count = reply["content"].get("execution_count", cell.count)
        if cell.status is None:
            cell.status = "failed" if reply["content"]["status"] == "error" else "ran"
        cells.append(cell)
    client.execute_interactive(JOIN, silent=True, store_history=False, timeout=60,
                               output_hook=lambda msg: None)
    last = Cell(LAST)
    run_until_running(client, last)
    cells.append(last)
    record_pid = manager.provisioner.process.pid
    kernels = children(record_pid)
    for pid in kernels:
        os.kill(pid, signal.SIGKILL)
    process = manager.provisioner.process
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    with open(out_path, "w") as f:
        json.dump({"record_pid": record_pid, "kernel_pids": kernels,
                   "record_status": process.poll(),
                   "cells": [c.as_dict() for c in cells]}, f, indent=1)
    client.stop_channels()
    manager.cleanup_resources()
    log.close()


if __name__ == "__main__":
    main()
