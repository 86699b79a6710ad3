#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# jupyter-driver.py - drive a Jupyter kernel installed by `cudatrace jupyter
# install`, as a notebook server would, for tests/cli/record-jupyter.sh.
#
#   jupyter-driver.py KERNEL_NAME LOG_PREFIX [NOTEBOOK]
#
# 1. start the kernel (its stderr, the server's log, in LOG_PREFIX-1.log),
#    run cells that allocate on the GPU through ctypes, and kill the kernel
#    process itself with SIGKILL in the middle of a cell, as the OOM
#    killer would;
# 2. start it again, run a cell, and shut it down cleanly;
# 3. start it again and kill it as the server does when it gives up on a
#    kernel (SIGKILL to the whole process group: cudatrace record too);
# 4. start it once more (its log shows the cleanup of 3.) and shut it down;
# 5. with NOTEBOOK, run that notebook's code cells in a fresh kernel, in
#    the notebook's directory; its last cell kills the kernel.
#
# Prints key=value lines for the test: the exit status of `cudatrace
# record` for each start, and whether the cells ran.
# Needs ipykernel and jupyter_client (Debian: python3-ipykernel,
# python3-jupyter-client) for this Python.

import json
import os
import signal
import sys
import time

from jupyter_client.manager import KernelManager

CELL_SETUP = """
import ctypes
rt = ctypes.CDLL("libcudart.so.13")
rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
kept = []
def alloc(size):
    ptr = ctypes.c_void_p()
    assert rt.cudaMalloc(ctypes.byref(ptr), size) == 0
    kept.append(ptr)
"""
CELL_ALLOC = """
import time
for _ in range(3): alloc(1 << 20)
print('allocated', len(kept), flush=True)
time.sleep(120)
"""


def children(pid):
    found = []
    for task in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/children" % (pid, task)) as f:
            found += [int(p) for p in f.read().split()]
    return found


def run_cell(client, code):
    reply = client.execute_interactive(code, timeout=60, output_hook=lambda msg: None)
    return reply["content"]["status"]


def run_until_output(client, code, text, timeout=60):
    """Sends CODE and returns once the cell printed TEXT: the cell is still running."""
    msg_id = client.execute(code)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = client.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream" and text in msg["content"]["text"]:
            return True
        if msg["msg_type"] == "error":
            return False
    return False


def start(name, log_path, cwd=None):
    log = open(log_path, "w")
    manager = KernelManager(kernel_name=name)
    manager.start_kernel(stderr=log, stdout=log, cwd=cwd or os.getcwd())
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    return manager, client, log


def wait_exit(manager, timeout=60):
    process = manager.provisioner.process
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    return process.poll()


def stop(manager, client, log):
    client.stop_channels()
    manager.cleanup_resources()
    log.close()


def main():
    name, prefix = sys.argv[1], sys.argv[2]

    # 1. Killed mid-run by SIGKILL to the kernel process.
    manager, client, log = start(name, prefix + "-1.log")
    status = run_cell(client, CELL_SETUP)
    running = run_until_output(client, CELL_ALLOC, "allocated 3")
    print("cells_1=%s,%s" % (status, "running" if running else "failed"))
    record_pid = manager.provisioner.process.pid
    kernel = children(record_pid)
    print("kernel_is_child_of_record=%s" % (len(kernel) == 1))
    for pid in kernel:
        os.kill(pid, signal.SIGKILL)
    print("record_status_1=%s" % wait_exit(manager))
    stop(manager, client, log)

    # 2. A clean start and shutdown.
    manager, client, log = start(name, prefix + "-2.log")
    print("cells_2=%s" % run_cell(client, CELL_SETUP))
    process = manager.provisioner.process
    manager.shutdown_kernel(now=False)
    print("record_status_2=%s" % process.wait(timeout=60))
    stop(manager, client, log)

    # 3. Killed the way the server kills a kernel: the whole process group.
    manager, client, log = start(name, prefix + "-3.log")
    print("cells_3=%s" % run_cell(client, CELL_SETUP))
    record_pid = manager.provisioner.process.pid
    os.killpg(os.getpgid(record_pid), signal.SIGKILL)
    print("record_status_3=%s" % wait_exit(manager))
    stop(manager, client, log)

    # 4. The next start cleans up after 3.
    manager, client, log = start(name, prefix + "-4.log")
    print("cells_4=%s" % run_cell(client, "print('hello')"))
    manager.shutdown_kernel(now=False)
    stop(manager, client, log)

    # 5. A notebook, cell by cell; its last cell kills the kernel.
    if len(sys.argv) > 3:
        notebook = json.load(open(sys.argv[3]))
        cells = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
        manager, client, log = start(name, prefix + "-5.log",
                                     cwd=os.path.dirname(os.path.abspath(sys.argv[3])))
        statuses = [run_cell(client, cell) for cell in cells[:-1]]
        print("notebook_cells=%s" % ",".join(statuses))
        client.execute(cells[-1])
        print("record_status_5=%s" % wait_exit(manager))
        stop(manager, client, log)


if __name__ == "__main__":
    main()
