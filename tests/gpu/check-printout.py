#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# check-printout.py - compare a cudatrace trace of one of the examples/cuda
# programs with what the program printed it did, and print TAP. On a real
# GPU there is no ledger: the program's own printout (one line per
# operation, with the addresses the runtime returned) is the truth.
#
#   check-printout.py --example NAME --printout FILE --trace EVENTS
#                     [--checks LIST] [--device real|simulated|any]
#                     [--window-slack-ns NS]
#
# EVENTS is what tests/trace/read-trace.py printed for the trace; FILE is the
# program's stdout; NAME is one of allocations, transfers, threads,
# nvtx-ranges, leaky-steps, two-devices (run with the arguments of
# tests/gpu/trace-examples.sh). The checks (default: all but nesting) are:
#
#   process   the trace lost no events and holds one process of NAME;
#             --device real: no device_info names the simulated GPU
#             (--device simulated: every one does)
#   printout  every line of the printout is understood
#   ops       each operation the printout tells of is exactly one semantic
#             event of its thread, in the order printed: allocations and
#             failed allocations (address, size, kind, API), frees (the
#             address, size and kind of their allocation), copies
#             (direction, size, pinned/pageable, sync), memsets, launches
#             (kernel, grid, block, shared memory); and no other semantic
#             event is in the trace. One test each.
#   first     the program's first runtime call that cudatrace traces is
#             traced: it is the runtime call of the main thread with the
#             earliest entry (doc/events.md, "Traced calls": each call is
#             recorded once, by its semantic event or its api_call),
#             returned 0, and its operation is the first one of the
#             printout
#   corr      every gpu_kernel, gpu_memcpy and gpu_memset has the
#             correlation id (and kernel or byte count) of a host launch,
#             memcpy or memset of the process, and each of those has its
#             GPU record (a host-to-host copy may have none); a record
#             written whole agrees with its call on all that the compact
#             forms take from the call (tracecheck.FROM_HOST: a copy's
#             bytes and stream, a configured launch's kernel, grid, block,
#             dynamic shared memory, stream and device): what
#             CUDATRACE_COMPACT=0 lets a real GPU confirm; every
#             gpu_memory and gpu_sync with a correlation id has a traced
#             call with that id
#   window    the GPU interval of each copy that NVIDIA documents as
#             blocking the host until it completes (device to host, pinned
#             host to device through cudaMemcpy, host to host) lies inside
#             its call's window, from the memcpy event's entry to its
#             time (the memcpy records its call); copies from pageable
#             memory to the device may return once their data is staged,
#             so they are reported as a diagnostic only (an example with no
#             such copy: none printed, none in the trace)
#   extra     what only some examples print: nvtx-ranges' ranges and marks,
#             leaky-steps' bytes never freed
#   nesting   (diagnostics only) whether driver calls lie inside runtime
#             calls of the same thread (their entry..exit windows), and
#             where launch configurations came from
#
# Some operations are not printed: the checker knows them from the
# example's source (examples/cuda/*.cu) and derives their sizes from what
# is printed (transfers' and nvtx-ranges' buffers, leaky-steps' batch
# buffer, threads' per-iteration sizes, two-devices' pinned buffer). A
# change to an example's output makes the `printout` test fail until this
# file follows it.
#
# Python 3 standard library only.

import argparse
import collections
import os
import re
import sys
from urllib.parse import unquote

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import tracecheck  # noqa: E402
from tracecheck import Tap, enum_text, number  # noqa: E402

SEMANTIC = ("mem_alloc", "mem_alloc_failed", "mem_free", "memcpy", "memset", "launch")
CATEGORIES = (
    ("allocations", ("mem_alloc", "mem_alloc_failed"),
     "is exactly one mem_alloc (mem_alloc_failed) with its address, size, kind and API"),
    ("frees", ("mem_free",),
     "is exactly one mem_free with the address, size and kind of its allocation"),
    ("copies", ("memcpy",),
     "is exactly one memcpy with its direction, size, pinned/pageable host memory and sync"),
    ("memsets", ("memset",), "is exactly one memset with its size, value and sync"),
    ("launches", ("launch",), "is exactly one launch with its kernel, grid, block and "
     "shared memory"),
)
GPU_OF_HOST = {"launch": "gpu_kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset"}
HOST_OF_GPU = {gpu: host for host, gpu in GPU_OF_HOST.items()}
RESULTS = {"cudaErrorMemoryAllocation": 2, "cudaErrorInvalidValue": 1}
SIMULATED_NAME = "(simulated)"
HEX = r"(0x[0-9a-fA-F]+)"
LAUNCH_APIS = frozenset(("__cudaLaunchKernel", "cudaLaunchKernel"))


# ------------------------------------------------------------ the trace

def api_text(name):
    """An API name without CUPTI's version suffix or the per-thread
    default-stream suffix: cudaMemcpyAsync_v3020 -> cudaMemcpyAsync."""
    return re.sub(r"_pt(sz|ds)$", "", tracecheck.api_text(name))


def load_events(path):
    """The events of tracecheck.load_events, with their time under '_ts'."""
    events = tracecheck.load_events(path)
    for event in events:
        event["_ts"] = number(event.get("ts"), 0)
    return events


class Trace:
    """The events of the example's process, with the names recorded once."""

    def __init__(self, events, procname):
        self.discarded = [e for e in events if e["_provider"] == "lttng"]
        ours = tracecheck.complete_compact_events(
            [e for e in events if e["_provider"] == "cudatrace"])
        self.others = sorted({e.get("procname") for e in ours} - {procname})
        self.events = sorted((e for e in ours if e.get("procname") == procname),
                             key=lambda e: (e["_ts"], e["_index"]))
        self.vpids = sorted({number(e.get("vpid")) for e in self.events})
        self.api_names = {}
        self.kernel_names = {}
        for event in self.events:
            if event["_name"] == "api_name":
                key = (enum_text("domain", event.get("domain")), number(event.get("cbid")))
                self.api_names[key] = unquote(event.get("name", ""))
            elif event["_name"] == "kernel_name":
                self.kernel_names[number(event.get("kernel_id"))] = unquote(event.get("name", ""))
        self.gpu_by_corr = collections.defaultdict(list)
        for event in self.named(*HOST_OF_GPU):
            self.gpu_by_corr[(event["_name"], number(event.get("correlation_id")))].append(event)

    def named(self, *names):
        return [e for e in self.events if e["_name"] in names]

    def recorded_calls(self):
        return tracecheck.recorded_calls(self.events)

    def name_of_call(self, domain, cbid):
        return self.api_names.get((enum_text("domain", domain), number(cbid)),
                                  "unnamed(%s,%s)" % (domain, cbid))

    def api(self, event):
        return api_text(self.name_of_call(event.get("api_domain"), event.get("api_cbid")))

    def kernel(self, event):
        kernel_id = number(event.get("kernel_id"))
        return self.kernel_names.get(kernel_id, "unnamed-kernel(%s)" % event.get("kernel_id"))

    def gpu_records(self, event):
        gpu = GPU_OF_HOST.get(event["_name"])
        return self.gpu_by_corr.get((gpu, number(event.get("correlation_id"))), [])

    def launch_config(self, event):
        """Grid, block and dynamic shared memory of a launch: from the launch
        event when it knows them (config_known=1), else from its gpu_kernel."""
        source = event
        if number(event.get("config_known"), 1) == 0:
            records = self.gpu_records(event)
            if records:
                source = records[0]
        grid = tuple(number(source.get("grid_" + a)) for a in "xyz")
        block = tuple(number(source.get("block_" + a)) for a in "xyz")
        shared = number(source.get("shared_mem", source.get("dynamic_shared_mem")))
        return grid, block, shared

    def value(self, event, key):
        """A field of a semantic event as the printout's expectations say it."""
        if key in ("kind", "direction", "host"):
            return enum_text(key, event.get(key))
        if key == "api":
            return self.api(event)
        if key == "kernel":
            return self.kernel(event)
        if key in ("grid", "block", "shared_mem"):
            grid, block, shared = self.launch_config(event)
            return {"grid": grid, "block": block, "shared_mem": shared}[key]
        return number(event.get(key))


# ------------------------------------------------------------ expectations

class Ref:
    """The address of the allocation an earlier expectation (its label) was
    matched with: an address the program did not print."""

    def __init__(self, label):
        self.label = label

    def __repr__(self):
        return "<address of %s>" % self.label


class Kernel:
    """A kernel name as printed, against the mangled name CUPTI gives."""

    def __init__(self, name):
        self.name = name

    def matches(self, mangled):
        return mangled == self.name or ("%d%s" % (len(self.name), self.name)) in mangled

    def __repr__(self):
        return self.name


class Expect:
    def __init__(self, event, line, thread, label, fields):
        self.event = event
        self.line = line
        self.thread = thread
        self.label = label
        self.fields = fields
        self.matched = None

    def describe(self):
        parts = []
        for key, value in sorted(self.fields.items()):
            if isinstance(value, (set, frozenset)):
                value = "|".join(sorted(value))
            elif isinstance(value, int) and key in ("address", "src", "dst"):
                value = "0x%x" % value
            parts.append("%s=%s" % (key, value))
        where = "line %d '%s'" % self.line if self.line else "unprinted"
        return "%s %s (%s)" % (self.event, " ".join(parts), where)


def dims(text):
    """'(64,2,1)' or '4096' as a 3-tuple."""
    values = [int(v) for v in re.findall(r"[0-9]+", text)]
    return tuple(values + [1] * (3 - len(values)))[:3]


class Printout:
    """What the printout says happened, as expected semantic events per
    logical thread ('main', or 'worker N' for threads' workers)."""

    def __init__(self, lines):
        self.lines = lines
        self.expects = []
        self.errors = []
        self.labels = {}
        self.live = {}          # printed address -> (kind, size, label, device)
        self.where = None       # the (number, text) of the line being read
        self.state = {}
        self.nvtx = collections.Counter()
        self.never_freed = None

    def add(self, event, thread="main", label=None, **fields):
        expect = Expect(event, self.where, thread, label, fields)
        self.expects.append(expect)
        if label:
            self.labels[label] = expect
        return expect

    def error(self, text):
        where = "line %d '%s': " % self.where if self.where else ""
        self.errors.append(where + text)

    # Allocations whose address was printed, and their frees.
    def alloc(self, kind, size, address, api, device=None, label=None):
        fields = {"kind": kind, "size": size, "address": address, "api": api}
        if device is not None:
            fields["device"] = device
        label = label or "alloc@%d" % self.where[0]
        self.add("mem_alloc", label=label, **fields)
        self.live[address] = (kind, size, label, device)

    def free(self, address, api, device=None):
        if address not in self.live:
            self.error("a free of %s, which no printed allocation returned" % hex(address))
            return
        kind, size, _, alloc_device = self.live.pop(address)
        fields = {"kind": kind, "size": size, "address": address, "api": api}
        if device is not None or alloc_device is not None:
            fields["device"] = device if device is not None else alloc_device
        self.add("mem_free", **fields)

    # The generic lines: copies, memsets, launches.
    def copy_line(self, text, device=None):
        match = re.match(r"^(cudaMemcpy|cudaMemcpyAsync) (HtoD|DtoH|DtoD|HtoH|default) "
                         r"([0-9]+) bytes (.*)$", text)
        match2d = re.match(r"^(cudaMemcpy2D|cudaMemcpy2DAsync) (HtoD|DtoH|DtoD|HtoH) "
                           r"([0-9]+) x ([0-9]+) (.*)$", text)
        if match:
            call, direction, size, rest = match.group(1), match.group(2), int(match.group(3)), \
                match.group(4)
        elif match2d:
            call, direction = match2d.group(1), match2d.group(2)
            size = int(match2d.group(3)) * int(match2d.group(4))
            rest = match2d.group(5)
        else:
            return False
        if direction == "default":
            sides = re.search(r"(\w+) to (\w+) \(inferred\)", rest)
            if not sides:
                self.error("a cudaMemcpyDefault copy whose sides are not said")
                return True
            on_device = tuple(word == "device" for word in sides.groups())
            direction = {(False, True): "HtoD", (True, False): "DtoH", (True, True): "DtoD",
                         (False, False): "HtoH"}[on_device]
        # cudatrace's rule (doc/events.md): the host side is pinned when it
        # lies in page-locked memory; a host-to-host copy is pinned only
        # when both sides are, so "pinned to pageable" is pageable.
        if direction in ("DtoD", "PtoP"):
            host = "none"
        elif "pageable" in rest:
            host = "pageable"
        elif "pinned" in rest:
            host = "pinned"
        else:
            self.error("a copy that does not say whether its host memory is pinned")
            return True
        fields = {"direction": direction, "bytes": size, "host": host,
                  "sync": 0 if call.endswith("Async") else 1, "api": {call}}
        if device is not None:
            fields["device"] = device
        self.add("memcpy", **fields)
        return True

    def memset_line(self, text):
        match = re.match(r"^(cudaMemset|cudaMemsetAsync) ([0-9]+) bytes to (\S+)$", text)
        match2d = re.match(r"^(cudaMemset2D|cudaMemset2DAsync) ([0-9]+) x ([0-9]+) to (\S+)$",
                           text)
        if match:
            call, size, value = match.group(1), int(match.group(2)), match.group(3)
        elif match2d:
            call, value = match2d.group(1), match2d.group(4)
            size = int(match2d.group(2)) * int(match2d.group(3))
        else:
            return False
        self.add("memset", bytes=size, value=int(value, 0), element_size=1,
                 sync=0 if call.endswith("Async") else 1, api={call})
        return True

    def launch_line(self, text, device=None):
        match = re.match(r"^(launch|cudaLaunchKernel) (\w+) <<<(.*)>>>( on .*)?$", text)
        if not match:
            return False
        parts = re.findall(r"\([^)]*\)|[0-9]+", match.group(3))
        if len(parts) < 2:
            self.error("a launch configuration not understood")
            return True
        fields = {"kernel": Kernel(match.group(2)), "grid": dims(parts[0]),
                  "block": dims(parts[1]), "shared_mem": int(parts[2]) if len(parts) > 2 else 0,
                  "api": {"cudaLaunchKernel"} if match.group(1) == "cudaLaunchKernel"
                  else LAUNCH_APIS}
        if device is not None:
            fields["device"] = device
        self.add("launch", **fields)
        return True

    def generic(self, text, device=None):
        return (self.copy_line(text, device) or self.memset_line(text)
                or self.launch_line(text, device))

    def read(self, handler):
        for number_, text in enumerate(self.lines, 1):
            self.where = (number_, text)
            if not handler(self, text):
                self.error("not understood")
        self.where = None


# ------------------------------------------------------------ the examples
#
# One reader per example: it turns each printed line into the semantic
# events it stands for, and adds those the example does without printing.

def read_allocations(out, text):
    match = re.match(r"^cudaMalloc ([0-9]+) bytes -> %s( \(never freed\))?$" % HEX, text)
    if match:
        out.alloc("device", int(match.group(1)), int(match.group(2), 16), {"cudaMalloc"})
        if "first" not in out.state:
            out.state["first"] = out.expects[-1]
        return True
    match = re.match(r"^cudaMalloc ([0-9]+) bytes -> (cuda\w+)$", text)
    if match:
        out.add("mem_alloc_failed", kind="device", size=int(match.group(1)),
                result=RESULTS.get(match.group(2), -1), api={"cudaMalloc"})
        return True
    match = re.match(r"^cudaMallocPitch ([0-9]+) x ([0-9]+) -> %s, pitch ([0-9]+)$" % HEX, text)
    if match:
        # size: pitch x height (doc/events.md)
        out.alloc("pitch", int(match.group(4)) * int(match.group(2)), int(match.group(3), 16),
                  {"cudaMallocPitch"})
        return True
    for pattern, kind, api in (
            (r"^cudaMallocHost ([0-9]+) bytes -> %s$", "host_pinned",
             {"cudaMallocHost", "cudaHostAlloc"}),
            (r"^cudaHostAlloc ([0-9]+) bytes \([^)]*\) -> %s$", "host_pinned", {"cudaHostAlloc"}),
            (r"^cudaHostRegister ([0-9]+) bytes at %s$", "host_registered", {"cudaHostRegister"}),
            (r"^cudaMallocManaged ([0-9]+) bytes -> %s$", "managed", {"cudaMallocManaged"}),
            (r"^cudaMallocAsync ([0-9]+) bytes -> %s$", "async", {"cudaMallocAsync"}),
            (r"^cudaMallocFromPoolAsync ([0-9]+) bytes -> %s$", "async",
             {"cudaMallocFromPoolAsync"})):
        match = re.match(pattern % HEX, text)
        if match:
            out.alloc(kind, int(match.group(1)), int(match.group(2), 16), api)
            return True
    match = re.match(r"^(cudaFree|cudaFreeHost|cudaHostUnregister|cudaFreeAsync) %s$" % HEX, text)
    if match:
        out.free(int(match.group(2), 16), {match.group(1)})
        return True
    return text in ("cudaMemPoolCreate on device 0", "cudaMemPoolDestroy", "done")


def read_transfers(out, text):
    match = re.match(r"^buffers: ([0-9]+) bytes pageable, pinned and twice on the device$", text)
    if match:
        # cudaMallocHost(&pinned), cudaMalloc(&device), cudaMalloc(&device2);
        # nvcc's cudaMallocHost template for a typed pointer calls cudaHostAlloc.
        size = int(match.group(1))
        out.state["first"] = out.add("mem_alloc", label="pinned", kind="host_pinned", size=size,
                                     api={"cudaMallocHost", "cudaHostAlloc"})
        out.add("mem_alloc", label="device", kind="device", size=size, api={"cudaMalloc"})
        out.add("mem_alloc", label="device2", kind="device", size=size, api={"cudaMalloc"})
        out.state["size"] = size
        return True
    if text == "done":
        # Freed, unprinted, before "done": device2, device, pinned.
        size = out.state.get("size")
        if size is None:
            out.error("'done' without the 'buffers:' line")
            return True
        out.add("mem_free", kind="device", size=size, address=Ref("device2"), api={"cudaFree"})
        out.add("mem_free", kind="device", size=size, address=Ref("device"), api={"cudaFree"})
        out.add("mem_free", kind="host_pinned", size=size, address=Ref("pinned"),
                api={"cudaFreeHost"})
        return True
    return out.generic(text) or text in ("cudaStreamSynchronize", "cudaDeviceSynchronize")


def thread_sizes(index, iterations):
    """threads.cu: the bytes of each iteration of worker INDEX."""
    return [(1 + (index * 7 + i) % 16) << 12 for i in range(iterations)]


def read_threads(out, text):
    match = re.match(r"^thread ([0-9]+): ([0-9]+) allocations, ([0-9]+) copies "
                     r"\(([0-9]+) bytes\), ([0-9]+) launches$", text)
    if match:
        index, allocations, copies, total, launches = (int(g) for g in match.groups())
        sizes = thread_sizes(index, allocations)
        if copies != 2 * allocations or launches != allocations or total != 2 * sum(sizes):
            out.error("not what threads.cu's loop does (one allocation, two copies of "
                      "(1 + (7 x thread + i) %% 16) x 4096 bytes and one launch an iteration): "
                      "has the example changed?")
            return True
        worker = "worker %d" % index
        pinned = "%s pinned" % worker
        out.add("mem_alloc", thread=worker, label=pinned, kind="host_pinned", size=64 << 10,
                api={"cudaMallocHost", "cudaHostAlloc"})
        for i, size in enumerate(sizes):
            buffer = "%s buffer %d" % (worker, i)
            out.add("mem_alloc", thread=worker, label=buffer, kind="device", size=size,
                    api={"cudaMalloc"})
            out.add("memcpy", thread=worker, direction="HtoD", bytes=size, host="pinned", sync=0,
                    src=Ref(pinned), dst=Ref(buffer), api={"cudaMemcpyAsync"})
            out.add("launch", thread=worker, kernel=Kernel("increment"),
                    grid=((size // 4 + 127) // 128, 1, 1), block=(128, 1, 1), shared_mem=0,
                    api=LAUNCH_APIS)
            out.add("memcpy", thread=worker, direction="DtoH", bytes=size, host="pinned", sync=0,
                    src=Ref(buffer), dst=Ref(pinned), api={"cudaMemcpyAsync"})
            out.add("mem_free", thread=worker, kind="device", size=size, address=Ref(buffer),
                    api={"cudaFree"})
        out.add("mem_free", thread=worker, kind="host_pinned", size=64 << 10,
                address=Ref(pinned), api={"cudaFreeHost"})
        return True
    return text == "done"


def read_nvtx_ranges(out, text):
    match = re.match(r"^model ready: two buffers of ([0-9]+) bytes$", text)
    if match:
        size = int(match.group(1))
        out.state["size"] = size
        out.state["first"] = out.add("mem_alloc", label="batch", kind="device", size=size,
                                     api={"cudaMalloc"})
        out.add("mem_alloc", label="weights", kind="device", size=size, api={"cudaMalloc"})
        out.nvtx["mark model ready"] += 1
        return True
    match = re.match(r"^epoch ([0-9]+)$", text)
    if match:
        out.nvtx["push epoch"] += 1
        return True
    size = out.state.get("size")
    match = re.match(r"^  step [0-9]+: forward \(upload ([0-9]+) bytes, one launch\)$", text)
    if match and size is not None:
        upload = int(match.group(1))
        out.add("memcpy", direction="HtoD", bytes=upload, host="pageable", sync=1,
                dst=Ref("batch"), api={"cudaMemcpy"})
        out.add("launch", kernel=Kernel("step"), grid=((upload // 4 + 255) // 256, 1, 1),
                block=(256, 1, 1), shared_mem=0, api=LAUNCH_APIS)
        out.nvtx["push forward"] += 1
        return True
    match = re.match(r"^  step [0-9]+: optimizer \(one memset, synchronize\)$", text)
    if match and size is not None:
        out.add("memset", address=Ref("batch"), bytes=size, value=0, element_size=1, sync=1,
                api={"cudaMemset"})
        out.nvtx["push optimizer"] += 1
        return True
    if text == "done" and size is not None:
        out.add("mem_free", kind="device", size=size, address=Ref("weights"), api={"cudaFree"})
        out.add("mem_free", kind="device", size=size, address=Ref("batch"), api={"cudaFree"})
        return True
    return False


def read_leaky_steps(out, text):
    match = re.match(r"^step ([0-9]+): upload ([0-9]+) bytes, ([0-9]+) bytes of activations, "
                     r"leaked ([0-9]+) bytes so far$", text)
    if match:
        step, upload, activations, leaked = (int(g) for g in match.groups())
        if "batch" not in out.labels:
            # cudaMalloc(&batch, BATCH_BYTES) before the first step.
            out.state["first"] = out.add("mem_alloc", label="batch", kind="device", size=upload,
                                         api={"cudaMalloc"})
            out.state["batch"] = upload
        kept = leaked - out.state.get("leaked", 0)
        out.state["leaked"] = leaked
        act, keep = "activations %d" % step, "kept %d" % step
        out.add("memcpy", direction="HtoD", bytes=upload, host="pageable", sync=1,
                dst=Ref("batch"), api={"cudaMemcpy"})
        out.add("mem_alloc", label=act, kind="device", size=activations, api={"cudaMalloc"})
        out.add("launch", kernel=Kernel("forward"),
                grid=((activations // 4 + 255) // 256, 1, 1), block=(256, 1, 1), shared_mem=0,
                api=LAUNCH_APIS)
        # The loss: one float back.
        out.add("memcpy", direction="DtoH", bytes=4, host="pageable", sync=1, src=Ref(act),
                api={"cudaMemcpy"})
        out.add("mem_alloc", label=keep, kind="device", size=kept, api={"cudaMalloc"})
        out.add("memset", address=Ref(keep), bytes=kept, value=0, element_size=1, sync=1,
                api={"cudaMemset"})
        out.add("mem_free", kind="device", size=activations, address=Ref(act), api={"cudaFree"})
        return True
    match = re.match(r"^done: ([0-9]+) bytes never freed$", text)
    if match and "batch" in out.labels:
        out.never_freed = int(match.group(1))
        if out.never_freed != out.state.get("leaked"):
            out.error("the total never freed is not the last step's")
        out.add("mem_free", kind="device", size=out.state["batch"], address=Ref("batch"),
                api={"cudaFree"})
        return True
    return False


def read_two_devices(out, text):
    match = re.match(r"^device ([0-9]+): (.*)$", text)
    if not match:
        match = re.match(r"^cudaMemcpyPeer ([0-9]+) bytes from device ([0-9]+) to device "
                         r"([0-9]+)$", text)
        if match:
            size, src, dst = (int(g) for g in match.groups())
            out.add("memcpy", direction="PtoP", bytes=size, host="none", sync=1,
                    src=Ref("device %d" % src), dst=Ref("device %d" % dst), src_device=src,
                    dst_device=dst, api={"cudaMemcpyPeer"})
            return True
        if text == "done" and "host" in out.labels:
            out.add("mem_free", kind="host_pinned", size=out.state["size"], address=Ref("host"),
                    api={"cudaFreeHost"})
            return True
        return False
    device, rest = int(match.group(1)), match.group(2)
    alloc = re.match(r"^cudaMalloc ([0-9]+) bytes -> %s$" % HEX, rest)
    if alloc:
        size = int(alloc.group(1))
        if "host" not in out.labels:
            # cudaMallocHost(&host, BYTES) before the first device's buffer.
            out.state["size"] = size
            out.state["first"] = out.add("mem_alloc", label="host", kind="host_pinned",
                                         size=size, api={"cudaMallocHost", "cudaHostAlloc"})
        out.alloc("device", size, int(alloc.group(2), 16), {"cudaMalloc"}, device=device,
                  label="device %d" % device)
        return True
    copy = re.match(r"^(cudaMemcpyAsync|cudaMemcpy) (HtoD|DtoH) ([0-9]+) bytes$", rest)
    if copy and "host" in out.labels:
        # From and to the pinned buffer.
        to_device = copy.group(2) == "HtoD"
        buffer = Ref("device %d" % device)
        out.add("memcpy", direction=copy.group(2), bytes=int(copy.group(3)), host="pinned",
                sync=0 if copy.group(1).endswith("Async") else 1,
                src=Ref("host") if to_device else buffer, dst=buffer if to_device else Ref("host"),
                api={copy.group(1)}, **{"dst_device" if to_device else "src_device": device})
        return True
    free = re.match(r"^cudaFree %s$" % HEX, rest)
    if free:
        out.free(int(free.group(1), 16), {"cudaFree"}, device=device)
        return True
    return out.launch_line(rest, device)


EXAMPLES = {
    # name: (reader, names of the first runtime call cudatrace traces, what
    # loaded the tracer before it (None: that call's own lazy
    # initialisation))
    "allocations": (read_allocations, {"cudaMalloc"}, None),
    "transfers": (read_transfers, {"cudaMallocHost", "cudaHostAlloc"}, None),
    "threads": (read_threads, {"cudaFree"}, None),
    "nvtx-ranges": (read_nvtx_ranges, {"cudaMalloc"}, "the first NVTX call"),
    "leaky-steps": (read_leaky_steps, {"cudaMalloc"}, None),
    "two-devices": (read_two_devices, {"cudaMallocHost", "cudaHostAlloc"},
                    "cudaGetDeviceCount, a call cudatrace does not trace"),
}


# ------------------------------------------------------------ matching

def field_matches(trace, event, key, expected, resolve):
    if isinstance(expected, Ref):
        address = resolve(expected)
        return address is None or trace.value(event, key) == address
    actual = trace.value(event, key)
    if isinstance(expected, (set, frozenset)):
        return actual in expected
    if isinstance(expected, Kernel):
        return expected.matches(actual)
    return actual == expected


def event_text(trace, event):
    keys = {
        "mem_alloc": ("kind", "address", "size", "device", "api"),
        "mem_free": ("kind", "address", "size", "device", "api"),
        "mem_alloc_failed": ("kind", "size", "result", "api"),
        "memcpy": ("direction", "src", "dst", "bytes", "host", "sync", "api"),
        "memset": ("address", "bytes", "value", "element_size", "sync", "api"),
        "launch": ("kernel", "grid", "block", "shared_mem", "config_known", "api"),
    }[event["_name"]]
    parts = []
    for key in keys:
        value = trace.value(event, key)
        if key in ("address", "src", "dst") and isinstance(value, int):
            value = "0x%x" % value
        parts.append("%s=%s" % (key, value))
    return "%s %s (vtid %s, correlation_id %s)" % (event["_name"], " ".join(parts),
                                                     event.get("vtid"),
                                                     event.get("correlation_id"))


class Matching:
    """The printout's expectations paired with the trace's semantic events,
    thread by thread and category by category, in order."""

    def __init__(self, trace, printout):
        self.trace = trace
        self.printout = printout
        self.missing = collections.defaultdict(list)   # category -> [Expect]
        self.extra = collections.defaultdict(list)     # category -> [event]
        self.next_event = {}                           # Expect -> the event found instead
        main = trace.vpids[0] if trace.vpids else None
        by_thread = collections.defaultdict(list)
        for event in trace.named(*SEMANTIC):
            by_thread[number(event.get("vtid"))].append(event)
        logical = collections.OrderedDict()
        for expect in printout.expects:
            logical.setdefault(expect.thread, []).append(expect)
        self.thread_of = {"main": main}
        workers = [name for name in logical if name != "main"]
        self.assign_workers(workers, logical, by_thread, main)
        for name, expects in logical.items():
            vtid = self.thread_of.get(name)
            self.match_thread(expects, by_thread.get(vtid, []) if vtid is not None else [])
        mapped = set(self.thread_of.values())
        for vtid, events in by_thread.items():
            if vtid not in mapped:
                for event in events:
                    self.extra[self.category(event["_name"])].append(event)

    @staticmethod
    def category(event_name):
        for name, events, _ in CATEGORIES:
            if event_name in events:
                return name
        return None

    def resolve(self, ref):
        expect = self.printout.labels.get(ref.label)
        if expect is None or expect.matched is None:
            return None
        return number(expect.matched.get("address"))

    def matches(self, expect, event):
        if event["_name"] != expect.event:
            return False
        return all(field_matches(self.trace, event, key, value, self.resolve)
                   for key, value in expect.fields.items())

    def match_thread(self, expects, events):
        for name, event_names, _ in CATEGORIES:
            wanted = [e for e in expects if e.event in event_names]
            found = [e for e in events if e["_name"] in event_names]
            position = 0
            for expect in wanted:
                hit = None
                for index in range(position, len(found)):
                    if self.matches(expect, found[index]):
                        hit = index
                        break
                if hit is None:
                    self.missing[name].append(expect)
                    if position < len(found):
                        self.next_event[expect] = found[position]
                    continue
                self.extra[name].extend(found[position:hit])
                expect.matched = found[hit]
                position = hit + 1
            self.extra[name].extend(found[position:])

    def assign_workers(self, workers, logical, by_thread, main):
        """Give each worker of the printout the thread whose allocations are
        its own (threads: sizes differ from worker to worker)."""
        if not workers:
            return
        candidates = [vtid for vtid in by_thread if vtid != main]
        scores = []
        for worker in workers:
            sizes = [e.fields.get("size") for e in logical[worker] if e.event == "mem_alloc"]
            for vtid in candidates:
                actual = [number(e.get("size")) for e in by_thread[vtid]
                          if e["_name"] == "mem_alloc"]
                same = sum(1 for a, b in zip(sizes, actual) if a == b)
                scores.append((same, worker, vtid))
        taken = set()
        for same, worker, vtid in sorted(scores, key=lambda s: (-s[0], s[1], s[2])):
            if worker in self.thread_of or vtid in taken or same == 0:
                continue
            self.thread_of[worker] = vtid
            taken.add(vtid)


# ------------------------------------------------------------ checks

def check_process(tap, trace, example, device_mode):
    details = ["%s count=%s" % (e["event"], e.get("count")) for e in trace.discarded]
    tap.ok(not trace.discarded, "the trace lost no events", details)
    details = []
    if len(trace.vpids) != 1:
        details.append("processes named %s in the trace: %s" % (example[:15], trace.vpids or
                                                                "none"))
    if trace.others:
        details.append("events of other processes too: %s" % ", ".join(map(str, trace.others)))
    tap.ok(len(trace.vpids) == 1, "the trace holds one process of %s" % example, details)
    if device_mode == "any":
        return
    names = sorted({unquote(e.get("name", "")) for e in trace.named("device_info")})
    simulated = [n for n in names if SIMULATED_NAME in n]
    if device_mode == "real":
        tap.ok(not simulated, "the program ran on a real GPU, not the simulator (device_info: "
               "%s)" % (", ".join(names) if names else "none recorded"))
    else:
        tap.ok(bool(names) and len(simulated) == len(names),
               "the program ran on the simulated GPU (device_info: %s)"
               % (", ".join(names) if names else "none recorded"))


def check_printout(tap, printout):
    operations = len(printout.expects)
    tap.ok(not printout.errors and operations > 0,
           "the printout is understood (%d lines, %d operations)"
           % (len(printout.lines), operations), printout.errors)


def check_ops(tap, matching):
    for name, _, what in CATEGORIES:
        expects = [e for e in matching.printout.expects
                   if matching.category(e.event) == name]
        details = []
        for expect in matching.missing[name]:
            details.append("not in the trace: %s" % expect.describe())
            event = matching.next_event.get(expect)
            if event is not None:
                details.append("  the trace's next %s there: %s"
                               % (event["_name"], event_text(matching.trace, event)))
        for event in matching.extra[name]:
            details.append("in the trace, not printed (or twice): %s"
                           % event_text(matching.trace, event))
        passed = not matching.missing[name] and not matching.extra[name]
        if expects:
            tap.ok(passed, "%s: each of the %d printed %s, and the trace has no other"
                   % (name, len(expects), what), details)
        else:
            tap.ok(passed, "%s: none printed, none in the trace" % name, details)


def check_first_call(tap, trace, matching, example):
    _, names, loader = EXAMPLES[example]
    wanted = "|".join(sorted(names))
    if loader is None:
        description = ("the program's first runtime call (%s), whose lazy initialisation loads "
                       "libcudatrace, is traced: the runtime initialises before opening the "
                       "call's callback frame" % wanted)
    else:
        description = ("the program's first runtime call that cudatrace traces (%s) is traced "
                       "(libcudatrace was loaded before it, by %s)" % (wanted, loader))
    main = trace.vpids[0] if trace.vpids else None
    calls = sorted((c for c in trace.recorded_calls() if number(c[0].get("vtid")) == main
                    and enum_text("domain", c[1]) == "runtime"), key=lambda c: c[5])
    details = []
    if not calls:
        details.append("no runtime call recorded on the main thread")
        tap.ok(False, description, details)
        return
    _, domain, cbid, corr, result, _ = calls[0]
    name = api_text(trace.name_of_call(domain, cbid))
    if name not in names:
        details.append("the main thread's first traced runtime call is %s (correlation id %d): "
                       "%s is missing, its ENTER callback came before cudatrace subscribed"
                       % (name, corr, wanted))
    if result != 0:
        details.append("%s returned %s" % (name, result))
    first_op = matching.printout.state.get("first")
    if first_op is not None:
        if first_op.matched is None:
            details.append("its operation is not in the trace: %s" % first_op.describe())
            details.append("the main thread's first traced runtime call is %s, correlation id "
                           "%d: the program's first call is missing" % (name, corr))
        elif number(first_op.matched.get("correlation_id")) != corr:
            details.append("its operation has correlation id %s, the first call %d"
                           % (first_op.matched.get("correlation_id"), corr))
    tap.ok(not details, description, details)


# The fields a whole GPU record shares with its host event: those a
# compact form takes from there (tracecheck.FROM_HOST).
WHOLE_FROM_HOST = {full: fields for _, full, fields in tracecheck.FROM_HOST.values()}


def h_known(host):
    """Whether HOST says what the record's compact form would take from it:
    a launch only with its configuration."""
    return host["_name"] != "launch" or number(host.get("config_known")) == 1


def differences(gpu, host):
    """The fields in which GPU's record and its host event differ."""
    return ", ".join("%s %s, the call's %s %s" % (field, gpu.get(field), host_field,
                                                  host.get(host_field))
                     for field, host_field in WHOLE_FROM_HOST[gpu["_name"]]
                     if number(gpu.get(field)) != number(host.get(host_field)))


def check_correlation(tap, trace):
    details = []
    whole = 0
    hosts = collections.defaultdict(list)
    for event in trace.named(*GPU_OF_HOST):
        hosts[(GPU_OF_HOST[event["_name"]], number(event.get("correlation_id")))].append(event)
    for times in trace.named(*tracecheck.COMPACT_GPU):
        details.append("%s correlation_id=%s has no %s before it"
                       % (times["_name"], times.get("correlation_id"),
                          tracecheck.COMPACT_GPU[times["_name"]]))
    gpu_events = trace.named(*HOST_OF_GPU)
    for gpu in gpu_events:
        found = hosts.get((gpu["_name"], number(gpu.get("correlation_id"))))
        if not found:
            details.append("%s correlation_id=%s has no host %s" % (
                gpu["_name"], gpu.get("correlation_id"), HOST_OF_GPU[gpu["_name"]]))
            continue
        field = "kernel_id" if gpu["_name"] == "gpu_kernel" else "bytes"
        if all(number(h.get(field)) != number(gpu.get(field)) for h in found):
            details.append("%s correlation_id=%s: %s %s, its host event %s"
                           % (gpu["_name"], gpu.get("correlation_id"), field, gpu.get(field),
                              found[0].get(field)))
        elif not gpu.get("_completed") and gpu["_name"] in WHOLE_FROM_HOST:
            whole += 1
            disagree = [differences(gpu, h) for h in found if h_known(h)]
            if disagree and all(disagree):
                details.append("%s correlation_id=%s disagrees with its call: %s"
                               % (gpu["_name"], gpu.get("correlation_id"), disagree[0]))
    host_to_host = 0
    for event in trace.named(*GPU_OF_HOST):
        if trace.gpu_records(event):
            continue
        if event["_name"] == "memcpy" and enum_text("direction", event.get("direction")) == "HtoH":
            host_to_host += 1
            continue
        details.append("host %s has no %s" % (event_text(trace, event),
                                               GPU_OF_HOST[event["_name"]]))
    # Other GPU records: their correlation id must be a traced call's.
    calls = {c[3] for c in trace.recorded_calls()}
    calls |= {number(e.get("correlation_id")) for e in trace.named("api_entry", *SEMANTIC)}
    others = trace.named("gpu_memory", "gpu_sync")
    unknown = 0
    for event in others:
        corr = number(event.get("correlation_id"))
        if corr == 0:
            unknown += 1
        elif corr not in calls:
            details.append("%s correlation_id=%s is no traced call's" % (event["_name"], corr))
    if whole:
        tap.diag("%d GPU records written whole, checked against their calls" % whole)
    if host_to_host:
        tap.diag("%d host-to-host copies have no gpu_memcpy" % host_to_host)
    if unknown:
        tap.diag("%d gpu_memory/gpu_sync records carry no correlation id" % unknown)
    tap.ok(not details,
           "every gpu_kernel, gpu_memcpy and gpu_memset has the correlation id of its host "
           "event, and each host event its GPU record (%d GPU records; %d gpu_memory and "
           "gpu_sync with a traced call's id)" % (len(gpu_events), len(others) - unknown),
           details)


def copy_blocks_until_done(direction, host, sync):
    """NVIDIA's API synchronization behaviour: the copies that return only
    once the copy has completed."""
    if direction == "HtoH":
        return True
    if direction == "DtoH":
        return sync or host == "pageable"
    return direction == "HtoD" and sync and host == "pinned"


def blocks_until_done(event):
    """A memcpy event of a copy that blocks the host until done."""
    return copy_blocks_until_done(enum_text("direction", event.get("direction")),
                                  enum_text("host", event.get("host")),
                                  number(event.get("sync")) == 1)


def printed_blocks_until_done(expect):
    """A printed copy that blocks the host until done."""
    return copy_blocks_until_done(expect.fields.get("direction"), expect.fields.get("host"),
                                  expect.fields.get("sync") == 1)


def staged(event):
    """Copies from pageable memory to the device: the call may return once
    the data is in the driver's staging buffer."""
    return (enum_text("direction", event.get("direction")) == "HtoD"
            and enum_text("host", event.get("host")) == "pageable")


def check_window(tap, trace, printout, slack):
    details = []
    checked = 0
    tightest = None
    staged_in = staged_all = 0
    for event in trace.named("memcpy"):
        blocking, pageable = blocks_until_done(event), staged(event)
        if not blocking and not pageable:
            continue
        records = trace.gpu_records(event)
        if not records:
            if enum_text("direction", event.get("direction")) != "HtoH":
                details.append("%s: no gpu_memcpy" % event_text(trace, event))
            continue
        entry, leave = number(event.get("entry"), 0), event["_ts"]
        if not entry:
            details.append("%s: no entry (it does not record its call)"
                           % event_text(trace, event))
            continue
        start = min(number(r.get("start"), 0) for r in records)
        end = max(number(r.get("end"), 0) for r in records)
        inside = start > 0 and entry - slack <= start <= end <= leave + slack
        if pageable:
            staged_all += 1
            staged_in += 1 if inside else 0
            continue
        checked += 1
        margin = min(start - entry, leave - end)
        tightest = margin if tightest is None else min(tightest, margin)
        if not inside:
            details.append("%s correlation_id=%s: GPU %d..%d, the call %d..%d"
                           % (trace.api(event), event.get("correlation_id"), start, end, entry,
                              leave))
    if staged_all:
        tap.diag("copies from pageable memory to the device: %d of %d lie inside their call "
                 "(NVIDIA documents that such a call may return before the DMA completes)"
                 % (staged_in, staged_all))
    if not checked and not details:
        # Nothing to time: the program says it made no such copy, and the
        # trace must not say otherwise (a host-to-host copy has no GPU work).
        printed = [e for e in printout.expects
                   if e.event == "memcpy" and printed_blocks_until_done(e)
                   and e.fields.get("direction") != "HtoH"]
        traced = [e for e in trace.named("memcpy")
                  if blocks_until_done(e) and enum_text("direction", e.get("direction")) != "HtoH"]
        copies = [e for e in printout.expects if e.event == "memcpy"]
        tap.ok(not printed and not traced,
               "no copy that blocks the host until done has GPU work to time: none printed "
               "(%d copies printed), none in the trace (%d memcpy events)"
               % (len(copies), len(trace.named("memcpy"))),
               ["printed: %s" % e.describe() for e in printed]
               + ["in the trace: %s" % event_text(trace, e) for e in traced])
        return
    tap.ok(not details, "the GPU interval of every copy that blocks the host until done lies "
           "inside its call's entry..exit window (%d copies, tightest margin %s ns%s)"
           % (checked, tightest, ", slack %d ns" % slack if slack else ""), details)


def check_extra(tap, trace, printout, example):
    if example == "nvtx-ranges":
        check_nvtx(tap, trace, printout)
    elif example == "leaky-steps":
        live = 0
        for event in trace.named("mem_alloc", "mem_free"):
            if enum_text("kind", event.get("kind")) == "device":
                live += number(event.get("delta"), 0)
        tap.ok(printout.never_freed is not None and live == printout.never_freed,
               "the device bytes live at exit (sum of delta: %d) are those the program says it "
               "never freed (%s)" % (live, printout.never_freed))


def check_nvtx(tap, trace, printout):
    def count(name, message=None, prefix=False):
        total = 0
        for event in trace.named(name):
            text = unquote(event.get("message", ""))
            if message is None or text == message or (prefix and text.startswith(message)):
                total += 1
        return total

    details = []
    for what, got, expected in (
            ("pushes 'epoch N'", count("nvtx_push", "epoch ", True), printout.nvtx["push epoch"]),
            ("pushes 'forward'", count("nvtx_push", "forward"), printout.nvtx["push forward"]),
            ("pushes 'optimizer' (a registered string)", count("nvtx_push", "optimizer"),
             printout.nvtx["push optimizer"]),
            ("pops", count("nvtx_pop"), count("nvtx_push")),
            ("marks 'model ready'", count("nvtx_mark", "model ready"),
             printout.nvtx["mark model ready"]),
            ("ranges 'training' started", count("nvtx_range_start", "training"), 1),
            ("ranges ended", count("nvtx_range_end"), 1)):
        if got != expected:
            details.append("%s: %d in the trace, %d expected" % (what, got, expected))
    domains = [unquote(e.get("name", "")) for e in trace.named("nvtx_domain_create")]
    if "cudatrace-example" not in domains:
        details.append("no nvtx_domain_create names cudatrace-example (%s)" % domains)
    tap.ok(not details, "NVTX: one push per epoch and step phase, as many pops, the mark, the "
           "start/end range and the named domain", details)


def report_nesting(tap, trace):
    """Diagnostics: are driver calls reported inside runtime calls? Each
    call is its entry..exit window on its thread."""
    by_thread = collections.defaultdict(list)
    for event, domain, cbid, corr, _, entry in trace.recorded_calls():
        by_thread[event.get("vtid")].append((entry, event["_ts"], enum_text("domain", domain),
                                             corr, api_text(trace.name_of_call(domain, cbid))))
    runtime_calls = nested = 0
    parents = set()
    pairs = collections.Counter()
    broken = []
    for vtid, calls in by_thread.items():
        stack = []
        for entry, leave, domain, corr, name in sorted(calls, key=lambda c: (c[0], -c[1])):
            while stack and stack[-1][1] < entry:
                stack.pop()
            if stack and leave > stack[-1][1]:
                broken.append("thread %s: %s (correlation id %d) ends after %s, which it "
                              "began in" % (vtid, name, corr, stack[-1][4]))
            if domain == "runtime":
                runtime_calls += 1
            elif domain == "driver":
                outer = [frame for frame in stack if frame[2] == "runtime"]
                if outer:
                    nested += 1
                    parents.add((vtid, outer[-1][3]))
                    pairs[(name, outer[-1][4])] += 1
            stack.append((entry, leave, domain, corr, name))
    if nested:
        examples = ", ".join("%s inside %s (%d)" % (inner, outer, n)
                             for (inner, outer), n in pairs.most_common(4))
        tap.diag("nested driver callbacks: reported (%d driver calls inside %d of %d runtime "
                 "calls; %s)" % (nested, len(parents), runtime_calls, examples))
    else:
        tap.diag("nested driver callbacks: not reported (no driver call inside any of %d "
                 "runtime calls)" % runtime_calls)
    for line in broken[:tracecheck.MAX_DIAGS]:
        tap.diag("calls not nested: %s" % line)
    launches = trace.named("launch")
    known = sum(1 for e in launches if number(e.get("config_known"), 1) == 1)
    if launches:
        tap.diag("launch configuration known at the launch event: %d of %d launches (the rest "
                 "from their gpu_kernel)" % (known, len(launches)))


ALL_CHECKS = ("process", "printout", "ops", "first", "corr", "window", "extra")


def main(argv):
    parser = argparse.ArgumentParser(
        description="compare a cudatrace trace of an example with its printout")
    parser.add_argument("--example", required=True, choices=sorted(EXAMPLES))
    parser.add_argument("--printout", required=True)
    parser.add_argument("--trace", required=True)
    parser.add_argument("--checks", default=",".join(ALL_CHECKS))
    parser.add_argument("--device", choices=("real", "simulated", "any"), default="any")
    parser.add_argument("--window-slack-ns", type=int, default=0)
    args = parser.parse_args(argv[1:])
    checks = [c for c in args.checks.split(",") if c]
    unknown = set(checks) - set(ALL_CHECKS) - {"nesting"}
    if unknown:
        parser.error("unknown checks: %s" % ", ".join(sorted(unknown)))

    with open(args.printout, encoding="utf-8", errors="replace") as stream:
        lines = [line.rstrip("\n") for line in stream]
    printout = Printout(lines)
    printout.read(EXAMPLES[args.example][0])
    trace = Trace(load_events(args.trace), args.example[:15])
    matching = Matching(trace, printout)
    tap = Tap()
    for check in checks:
        if check == "process":
            check_process(tap, trace, args.example, args.device)
        elif check == "printout":
            check_printout(tap, printout)
        elif check == "ops":
            check_ops(tap, matching)
        elif check == "first":
            check_first_call(tap, trace, matching, args.example)
        elif check == "corr":
            check_correlation(tap, trace)
        elif check == "window":
            check_window(tap, trace, printout, args.window_slack_ns)
        elif check == "extra":
            check_extra(tap, trace, printout, args.example)
        elif check == "nesting":
            report_nesting(tap, trace)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
