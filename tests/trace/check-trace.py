#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# check-trace.py - compare a cudatrace trace with the simulator's ledger
# (the ground truth, tests/cudasim/README.md) and print TAP.
#
#   check-trace.py --ledger LEDGER --trace EVENTS [--checks LIST]
#                  [--allow-missing-gpu] [--exclude-pid PID ...]
#                  [--dump-ledger LEDGER [--dump-reason REASON] [--after-dump]]
#   check-trace.py --compare EVENTS_A EVENTS_B
#
# EVENTS is what read-trace.py printed for the trace. The checks (default:
# all but drops, statedump and hostfunc) are:
#
#   readable  no event was discarded by LTTng
#   ops       every alloc, free, alloc_failed, memcpy, memset and launch of
#             the ledger is exactly one event of the trace with the same
#             process, thread, kind, device, address, size, direction, host
#             memory type, stream, API and correlation id (one test per
#             operation type; a vmm_physical allocation is compared without
#             its address: the trace has its handle, the ledger the
#             simulator's backing memory); a free of memory a context's
#             destruction freed (the ledger's api= is the destroying call,
#             or - when there is none) is a mem_reclaim, every other a
#             mem_free; a mem_free undone by its call's mem_free_failed is
#             no free, and each mem_free_failed undoes one
#   live      for each (process, device, kind) the running sum of delta
#             (mem_reclaim included) equals the ledger's live bytes at every
#             point where both orders have seen the same operations, and at
#             the end
#   addresses in the order of the trace, no address (or VMM handle) is
#             allocated twice without a free between, and no free is of
#             one the trace does not hold allocated (a mem_free of size 0
#             included); a trace that starts late holds what its first
#             complete statedump gives
#   statedump with --dump-ledger LEDGER, the ledger as the program left it
#             while the dump was taken: the trace has a complete dump (the
#             first, or with --dump-reason REASON the last of that reason)
#             whose mem_live events are the ledger's live set then, each
#             with its kind, device, address, size, stream, API,
#             correlation id and an alloc_time between its allocation and
#             the dump; its entries count them
#   corr      every gpu_kernel, gpu_memcpy and gpu_memset has the
#             correlation id (and kernel or byte count) of its host event,
#             or of a graph_launch, and every host event has its GPU event
#   gputime   the GPU start and end of each gpu_* event are the ledger's,
#             within GPU_TIME_TOLERANCE_NS (a ledger with no copy, memset
#             or launch: no gpu_* event in the trace)
#   window    for each call that blocks the host (synchronous copies to or
#             from the host, pageable asynchronous ones), the GPU interval
#             lies inside the call's entry..exit window, from the memcpy
#             event that records the call (a ledger with no such copy: none
#             in the trace either)
#   calls     every traced call is recorded once (doc/events.md, "Traced
#             calls"): each call of the ledger's operations (api= corr=)
#             is exactly one event of the trace, its semantic event with
#             an entry or its api_call, with result 0; the trace's failed
#             calls are the ledger's errors of the calls it names, as many
#             per thread and result; every recording event
#             has 0 < entry <= its time; no api_exit in the trace
#   drops     activity_dropped counts sum to the ledger's cupti_drop lines
#   hostfunc  every host function the ledger ran (host_func) has the call
#             that enqueued it (or the graph launch that ran it) in the
#             trace, recorded once, by process and correlation id (it ran
#             on another thread), named as the ledger's api=
#
# With --after-dump, the trace starts while the program runs: only the
# ledger's operations after --dump-ledger's are looked for (ops), the live
# bytes start from the dump's (live: at the end only), and the addresses
# the dump gives are held.
#
# Graphs (tests/cudasim/README.md, "Graphs and host functions"): the
# ledger's kernels, copies and memsets that a graph launch ran (graph=
# node=, api= the launch call) have no host event. ops asks instead, for
# each, one gpu_kernel, gpu_memcpy or gpu_memset with the launch's
# correlation id, kernel or byte count, and for each launch one
# graph_launch event with its call, stream and device; gputime compares
# their GPU times. Graph memory (kind=graph) is what the trace cannot see
# (doc/events.md, "Stream capture and graphs"): what launches allocate and
# free is left out of ops and live, and a graph allocation the program
# frees itself is a mem_free of size 0, memory the trace never saw
# allocated.
#
# --allow-missing-gpu is for traces that may lack GPU events (dropped
# records, a killed process): corr no longer asks every host event for its
# GPU event, and a launch whose configuration only its gpu_kernel would
# give is matched on the rest.
#
# --compare checks that two traces of the same workload (say, with and
# without nested driver callbacks) hold the same semantic events, with
# addresses resolved to the allocation they fall in and correlation ids
# left out.

import argparse
import collections
import os
import sys
from urllib.parse import unquote

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import tracecheck  # noqa: E402
from tracecheck import (GPU_TIME_TOLERANCE_NS, Tap, api_text, enum_text,  # noqa: E402
                        load_events, load_ledger, number, recorded_calls)

EVENT_OF_OP = {
    "alloc": "mem_alloc",
    "free": "mem_free",
    "alloc_failed": "mem_alloc_failed",
    "memcpy": "memcpy",
    "memset": "memset",
    "launch": "launch",
}
SEMANTIC_OPS = tuple(EVENT_OF_OP)
OP_OF_EVENT = {event: op for op, event in EVENT_OF_OP.items()}
# Memory CUDA freed by itself is a free of the ledger too.
OP_OF_EVENT["mem_reclaim"] = "free"
EVENTS_OF_OP = {op: tuple(e for e, o in OP_OF_EVENT.items() if o == op) for op in SEMANTIC_OPS}
# The calls that destroy a context, and with it the memory it owns; "-":
# none (the runtime's release at exit).
RECLAIMING_APIS = ("cudaDeviceReset", "cuCtxDestroy", "cuDevicePrimaryCtxRelease",
                   "cuDevicePrimaryCtxReset", "-")
MEM_EVENTS = ("mem_alloc", "mem_free", "mem_reclaim", "mem_free_failed")
GPU_EVENT_OF = {"launch": "gpu_kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset"}
# The ledger's operations that name the call that made them (api= corr=).
CALL_OPS = ("alloc", "free", "alloc_failed", "memcpy", "memset", "launch", "prefetch",
            "host_func")
# The ledger's operations whose call a semantic event records: the others
# are api_call events, which CUDATRACE_API=0 leaves out.
SEMANTIC_CALL_OPS = ("alloc", "memcpy", "memset", "launch")
# The kind of a free of memory the trace never saw allocated (size 0).
UNSEEN = "unseen"

NO_DEVICE = 255

# Result names the ledger prints, as the numbers the trace carries.
RESULT_CODES = {
    "CUDA_ERROR_INVALID_VALUE": 1, "cudaErrorInvalidValue": 1,
    "CUDA_ERROR_OUT_OF_MEMORY": 2, "cudaErrorMemoryAllocation": 2,
    "CUDA_ERROR_NOT_INITIALIZED": 3, "cudaErrorInitializationError": 3,
    "CUDA_ERROR_DEINITIALIZED": 4, "cudaErrorCudartUnloading": 4,
    "cudaErrorInsufficientDriver": 35,
    "CUDA_ERROR_NO_DEVICE": 100, "cudaErrorNoDevice": 100,
    "CUDA_ERROR_INVALID_DEVICE": 101, "cudaErrorInvalidDevice": 101,
    "CUDA_ERROR_INVALID_CONTEXT": 201,
    "CUDA_ERROR_NO_BINARY_FOR_GPU": 209, "cudaErrorNoKernelImageForDevice": 209,
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION": 222, "cudaErrorUnsupportedPtxVersion": 222,
    "CUDA_ERROR_INVALID_HANDLE": 400, "cudaErrorInvalidResourceHandle": 400,
    "CUDA_ERROR_NOT_READY": 600, "cudaErrorNotReady": 600,
    "CUDA_ERROR_ILLEGAL_ADDRESS": 700, "cudaErrorIllegalAddress": 700,
    "CUDA_ERROR_CONTEXT_IS_DESTROYED": 709, "cudaErrorContextIsDestroyed": 709,
    "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED": 713, "cudaErrorHostMemoryNotRegistered": 713,
    "CUDA_ERROR_NOT_SUPPORTED": 801, "cudaErrorNotSupported": 801,
}


# ------------------------------------------------------------ values

def device_of(value):
    """Ledger -1 and trace 255 both mean host memory, no device."""
    code = number(value)
    return None if code is None or code < 0 or code == NO_DEVICE else code


def address_of(kind, value):
    """The address of an allocation, where both sides can know it: a
    vmm_physical allocation has none a program sees (the trace carries its
    handle, the ledger the simulator's backing memory)."""
    return None if kind == "vmm_physical" else number(value)


def graph_replayed(op):
    """A ledger line of what a graph launch did (graph= node=)."""
    return "graph" in op


def by_graph_launch(op):
    """A ledger line of a graph launch's doing: its work (graph= node=), or
    the free of an AUTO_FREE_ON_LAUNCH relaunch."""
    return graph_replayed(op) or api_text(op.get("api")) in ("cudaGraphLaunch", "cuGraphLaunch")


def unseen_by_trace(op):
    """Graph memory the trace cannot see: what a launch allocates or frees,
    and an allocation node that could not be made. A graph allocation the
    program frees itself is a free the trace sees (of memory it never saw
    allocated)."""
    return op.get("kind") == "graph" and (by_graph_launch(op) or op["op"] != "free")


# ------------------------------------------------------------ trace model

def undo_key(event):
    """What a mem_free and the mem_free_failed that undoes it share."""
    return (event.get("vpid"), event.get("vtid"), number(event.get("correlation_id")),
            event.get("kind"), number(event.get("address")), number(event.get("size")))


def undone_frees(events):
    """The _index of each mem_free undone by a mem_free_failed and of the
    mem_free_failed (no free, for the ledger), and the mem_free_failed
    events with no mem_free before them."""
    waiting = collections.defaultdict(list)
    undone, unpaired = set(), []
    for event in sorted((e for e in events if e["_name"] in ("mem_free", "mem_free_failed")),
                        key=lambda e: (number(e.get("ts"), 0), e["_index"])):
        if event["_name"] == "mem_free":
            waiting[undo_key(event)].append(event)
        elif waiting[undo_key(event)]:
            undone.add(waiting[undo_key(event)].pop()["_index"])
            undone.add(event["_index"])
        else:
            unpaired.append(event)
    return undone, unpaired


class Trace:
    """The events of one trace, with the names the tracer records once."""

    def __init__(self, events):
        self.events = tracecheck.complete_compact_events([e for e in events if e["_provider"] == "cudatrace"])
        self.discarded = [e for e in events if e["_provider"] == "lttng"]
        self.api_names = {}
        self.kernel_names = {}
        for event in self.events:
            if event["_name"] == "api_name":
                key = (event.get("vpid"), enum_text("domain", event.get("domain")),
                       number(event.get("cbid")))
                self.api_names[key] = unquote(event.get("name", ""))
            elif event["_name"] == "kernel_name":
                key = (event.get("vpid"), number(event.get("kernel_id")))
                self.kernel_names[key] = unquote(event.get("name", ""))
        self.undone, self.unpaired_undo = undone_frees(self.events)
        self.gpu_by_corr = collections.defaultdict(list)
        for event in self.named("gpu_kernel", "gpu_memcpy", "gpu_memset"):
            key = (event.get("vpid"), event["_name"], number(event.get("correlation_id")))
            self.gpu_by_corr[key].append(event)

    def named(self, *names):
        return [e for e in self.events if e["_name"] in names]

    def recorded_calls(self):
        return recorded_calls(self.events)

    def call_name(self, event, domain, cbid):
        return self.api_name({"vpid": event.get("vpid"), "api_domain": domain,
                              "api_cbid": cbid})

    def api_name(self, event):
        key = (event.get("vpid"), enum_text("domain", event.get("api_domain")),
               number(event.get("api_cbid")))
        if key[1] == "unknown" and not key[2]:
            return "-"  # no call: the ledger's api=- (memory reclaimed at exit)
        return self.api_names.get(key, "unnamed(%s,%s)" % key[1:])

    def kernel_name(self, event):
        key = (event.get("vpid"), number(event.get("kernel_id")))
        return self.kernel_names.get(key, "unnamed-kernel(%s)" % key[1])

    def gpu_event(self, event, gpu_name):
        key = (event.get("vpid"), gpu_name, number(event.get("correlation_id")))
        found = self.gpu_by_corr.get(key)
        return found[0] if found else None


# ------------------------------------------------------------ keys
#
# An operation becomes a tuple of what the ledger and the trace both say
# about it; the two sides must give equal tuples.

def ledger_key(op):
    kind = op["op"]
    pid = (number(op.get("pid")), number(op.get("tid")))
    api = api_text(op.get("api"))
    corr = number(op.get("corr"))
    if kind == "free" and op.get("kind") == "graph":
        return (pid, kind, UNSEEN, device_of(op.get("dev")), number(op.get("addr")), 0, None,
                api, corr, False)
    if kind in ("alloc", "free"):
        stream = number(op.get("stream")) if op.get("kind") == "async" else None
        key = (pid, kind, op.get("kind"), device_of(op.get("dev")),
               address_of(op.get("kind"), op.get("addr")), number(op.get("size")), stream, api,
               corr)
        return key + (kind == "free" and api in RECLAIMING_APIS,)
    if kind == "alloc_failed":
        error = op.get("error")
        return (pid, kind, op.get("kind"), device_of(op.get("dev")), number(op.get("size")),
                RESULT_CODES.get(error, "nonzero"), number(op.get("total")), api, corr)
    if kind == "memcpy":
        return (pid, kind, op.get("dir"), number(op.get("src")), number(op.get("dst")),
                number(op.get("bytes")), op.get("host"), number(op.get("sync")),
                number(op.get("stream")), device_of(op.get("src_dev")),
                device_of(op.get("dst_dev")), api, corr)
    if kind == "memset":
        return (pid, kind, device_of(op.get("dev")), number(op.get("dst")),
                number(op.get("bytes")), number(op.get("value")), number(op.get("elem")),
                number(op.get("sync")), number(op.get("stream")), api, corr)
    if kind == "launch":
        return (pid, kind, op.get("name"), device_of(op.get("dev")), op.get("grid"),
                op.get("block"), number(op.get("shmem")), number(op.get("stream")), api, corr)
    return None


def launch_config_lost(trace, event):
    """A launch whose configuration only its gpu_kernel gives, when that
    event is not in the trace (dropped record, killed process)."""
    return (number(event.get("config_known"), 1) == 0
            and trace.gpu_event(event, "gpu_kernel") is None)


def launch_config(trace, event):
    """Grid, block, shared memory and stream of a launch: from the launch
    event when it knows them, else from its gpu_kernel."""
    source = event
    if number(event.get("config_known"), 1) == 0:
        source = trace.gpu_event(event, "gpu_kernel") or event
    grid = ",".join(source.get("grid_" + a, "?") for a in "xyz")
    block = ",".join(source.get("block_" + a, "?") for a in "xyz")
    shared = number(source.get("shared_mem", source.get("dynamic_shared_mem")))
    return grid, block, shared, number(source.get("stream"))


def trace_key(trace, event):
    op = OP_OF_EVENT.get(event["_name"])
    pid = (number(event.get("vpid")), number(event.get("vtid")))
    api = api_text(trace.api_name(event))
    corr = number(event.get("correlation_id"))
    if op in ("alloc", "free"):
        kind = enum_text("kind", event.get("kind"))
        if event["_name"] == "mem_free" and number(event.get("size")) == 0:
            kind = UNSEEN
        stream = number(event.get("stream")) if kind == "async" else None
        key = (pid, op, kind, device_of(event.get("device")),
               address_of(kind, event.get("address")), number(event.get("size")), stream, api,
               corr)
        return key + (event["_name"] == "mem_reclaim",)
    if op == "alloc_failed":
        result = number(event.get("result"))
        return (pid, op, enum_text("kind", event.get("kind")), device_of(event.get("device")),
                number(event.get("size")), result if result in RESULT_CODES.values()
                else ("nonzero" if result else 0), number(event.get("total")), api, corr)
    if op == "memcpy":
        return (pid, op, enum_text("direction", event.get("direction")),
                number(event.get("src")), number(event.get("dst")), number(event.get("bytes")),
                enum_text("host", event.get("host")), number(event.get("sync")),
                number(event.get("stream")), device_of(event.get("src_device")),
                device_of(event.get("dst_device")), api, corr)
    if op == "memset":
        return (pid, op, device_of(event.get("device")), number(event.get("address")),
                number(event.get("bytes")), number(event.get("value")),
                number(event.get("element_size")), number(event.get("sync")),
                number(event.get("stream")), api, corr)
    if op == "launch":
        grid, block, shared, stream = launch_config(trace, event)
        return (pid, op, trace.kernel_name(event), device_of(event.get("device")), grid, block,
                shared, stream, api, corr)
    return None


def describe(key):
    return " ".join(str(part) for part in key)


# ------------------------------------------------------------ matching

class Matching:
    """Each ledger operation paired with the trace event that reports it."""

    def __init__(self, ledger, trace, excluded_pids, missing_gpu_ok=False, since=0):
        ops = [op for op in ledger if op["op"] in SEMANTIC_OPS and op["_index"] >= since
               and number(op.get("pid")) not in excluded_pids]
        self.unseen = [op for op in ops if unseen_by_trace(op)]
        self.graph_work = [op for op in ops if graph_replayed(op) and op["op"] in GPU_EVENT_OF]
        self.graph_launches = graph_launches_of(ops)
        self.ledger_ops = [op for op in ops
                           if not unseen_by_trace(op) and not graph_replayed(op)]
        self.trace_ops = [e for e in trace.events if e["_name"] in OP_OF_EVENT
                          and e["_index"] not in trace.undone
                          and number(e.get("vpid")) not in excluded_pids]
        waiting = collections.defaultdict(collections.deque)
        for op in self.ledger_ops:
            op["_key"] = ledger_key(op)
            waiting[op["_key"]].append(op)
        self.extra = []
        self.event_of = {}
        for event in self.trace_ops:
            event["_key"] = trace_key(trace, event)
            if waiting[event["_key"]]:
                op = waiting[event["_key"]].popleft()
                self.event_of[op["_index"]] = event
                event["_op"] = op
            else:
                self.extra.append(event)
        self.missing = [op for queue in waiting.values() for op in queue]
        if missing_gpu_ok:
            self.match_without_config(trace)

    # A launch key without grid, block, shared memory and stream.
    @staticmethod
    def reduced(key):
        return key[:4] + key[-2:]

    def match_without_config(self, trace):
        """Pair launches whose configuration was lost with the ledger's on
        everything else."""
        waiting = collections.defaultdict(collections.deque)
        for op in self.missing:
            if op["op"] == "launch":
                waiting[self.reduced(op["_key"])].append(op)
        extra = []
        for event in self.extra:
            queue = waiting.get(self.reduced(event["_key"]))
            if event["_name"] == "launch" and launch_config_lost(trace, event) and queue:
                op = queue.popleft()
                self.event_of[op["_index"]] = event
                event["_op"] = op
                self.missing.remove(op)
            else:
                extra.append(event)
        self.extra = extra

    @staticmethod
    def nearest(key, pool):
        """The candidate with the most fields equal to key's: a hint of
        which field differs."""
        best, best_score = None, -1
        for other in pool:
            score = sum(1 for a, b in zip(key, other["_key"]) if a == b)
            if score > best_score:
                best, best_score = other, score
        return best


def graph_launches_of(ops):
    """(pid, corr) -> (api, stream, device) of each graph launch that did
    something the ledger has a line for."""
    launches = {}
    for op in ops:
        if graph_replayed(op):
            launches[(number(op.get("pid")), number(op.get("corr")))] = (
                api_text(op.get("api")), number(op.get("stream")), device_of(op.get("dev")))
    return launches


def check_readable(tap, trace):
    details = ["%s count=%s" % (e["event"], e.get("count")) for e in trace.discarded]
    tap.ok(not trace.discarded, "the trace lost no events (channel large enough)", details)


def check_ops(tap, matching, trace):
    for op_name in SEMANTIC_OPS:
        ledger_count = sum(1 for op in matching.ledger_ops if op["op"] == op_name)
        missing = [op for op in matching.missing if op["op"] == op_name]
        extra = [e for e in matching.extra if e["_name"] in EVENTS_OF_OP[op_name]]
        details = []
        if op_name == "free":
            # A mem_free_failed with no mem_free to undo.
            extra += trace.unpaired_undo
        for op in missing:
            details.append("missing from the trace: %s" % describe(op["_key"]))
            near = matching.nearest(op["_key"], extra)
            if near is not None:
                details.append("  nearest trace event: %s" % describe(near["_key"]))
        for event in extra:
            details.append("not in the ledger (or twice): %s" % describe(event["_key"]))
        extra_text = ""
        if op_name == "free":
            reclaimed = sum(1 for op in matching.ledger_ops if op["op"] == "free"
                            and op["_key"][-1])
            extra_text = ", %d of them reclaimed, %d mem_free undone by mem_free_failed" % (
                reclaimed, len(trace.undone) // 2)
        tap.ok(not missing and not extra,
               "every %s of the ledger is exactly one %s event (%d in the ledger%s)"
               % (op_name, " or ".join(EVENTS_OF_OP[op_name]), ledger_count, extra_text),
               details)
    if matching.graph_launches or matching.unseen or trace.named("graph_launch"):
        check_graph_launches(tap, matching, trace)
        check_graph_work(tap, matching, trace)


def check_graph_launches(tap, matching, trace):
    details = []
    found = collections.defaultdict(list)
    for event in trace.named("graph_launch"):
        found[(number(event.get("vpid")), number(event.get("correlation_id")))].append(event)
    for key, (api, stream, device) in sorted(matching.graph_launches.items()):
        events = found.pop(key, [])
        if len(events) != 1:
            details.append("launch pid=%s corr=%s (%s): %d graph_launch events"
                           % (key[0], key[1], api, len(events)))
            continue
        seen = (api_text(trace.api_name(events[0])), number(events[0].get("stream")),
                device_of(events[0].get("device")))
        if seen != (api, stream, device):
            details.append("launch pid=%s corr=%s: the trace says %s, the ledger %s"
                           % (key[0], key[1], describe(seen), describe((api, stream, device))))
    for key, events in sorted(found.items()):
        details.append("graph_launch pid=%s corr=%s: no work of it in the ledger" % key)
    tap.ok(not details, "every graph launch of the ledger is exactly one graph_launch event, "
           "with its call, stream and device (%d launches; %d lines of graph memory the trace "
           "cannot see)" % (len(matching.graph_launches), len(matching.unseen)), details)


def check_graph_work(tap, matching, trace):
    """The ledger's kernels, copies and memsets of graph launches, each one
    GPU event of its launch (gputime compares their times)."""
    waiting = collections.defaultdict(list)
    for name in GPU_EVENT_OF.values():
        for event in trace.named(name):
            key = (number(event.get("vpid")), name, number(event.get("correlation_id")))
            waiting[key].append(event)
    details = []
    for op in matching.graph_work:
        name = GPU_EVENT_OF[op["op"]]
        key = (number(op.get("pid")), name, number(op.get("corr")))
        if op["op"] == "launch":
            wanted = ("kernel", op.get("name"))
            matches = [e for e in waiting[key] if ("kernel", trace.kernel_name(e)) == wanted]
        else:
            wanted = ("bytes", number(op.get("bytes")))
            matches = [e for e in waiting[key] if ("bytes", number(e.get("bytes"))) == wanted]
        if not matches:
            details.append("%s of graph=%s node=%s (corr=%s, %s %s): no %s"
                           % (op["op"], op.get("graph"), op.get("node"), op.get("corr"),
                              wanted[0], wanted[1], name))
            continue
        # The one closest in time, when a launch ran the same work twice.
        start = number(op.get("gpu_start"), 0)
        best = min(matches, key=lambda e: abs(number(e.get("start"), 0) - start))
        waiting[key].remove(best)
    tap.ok(not details, "every kernel, copy and memset a graph launch ran is one gpu_kernel, "
           "gpu_memcpy or gpu_memset with the launch's correlation id (%d)"
           % len(matching.graph_work), details)


def check_live(tap, matching):
    """Running sums of delta against the ledger's live bytes."""
    ledger_series = collections.defaultdict(list)
    for op in matching.ledger_ops:
        # Graph memory: the trace cannot count it (doc/events.md).
        if op["op"] in ("alloc", "free") and op.get("kind") != "graph":
            ledger_series[(number(op.get("pid")), device_of(op.get("dev")),
                           op.get("kind"))].append(op)
    trace_series = collections.defaultdict(list)
    for event in matching.trace_ops:
        if event.get("_op", {}).get("kind") == "graph":
            continue  # memory the trace never saw allocated: delta 0
        if event["_name"] in ("mem_alloc", "mem_free", "mem_reclaim"):
            trace_series[(number(event.get("vpid")), device_of(event.get("device")),
                          enum_text("kind", event.get("kind")))].append(event)
    details = []
    compared = 0
    for series in sorted(set(ledger_series) | set(trace_series), key=str):
        ops = ledger_series.get(series, [])
        live = 0
        live_after = []
        position_of = {}
        for position, op in enumerate(ops):
            size = 0 if op.get("kind") == "vmm_map" else number(op.get("size"), 0)
            live += size if op["op"] == "alloc" else -size
            live_after.append(live)
            position_of[op["_index"]] = position
        events = sorted(trace_series.get(series, []), key=lambda e: number(e.get("ts"), 0))
        running = 0
        seen = set()
        highest = -1
        for count, event in enumerate(events, 1):
            running += number(event.get("delta"), 0)
            op = event.get("_op")
            if op is None or op["_index"] not in position_of:
                highest = len(ops)  # an event the ledger lacks: no common point after it
                continue
            size = 0 if op.get("kind") == "vmm_map" else number(op.get("size"), 0)
            expected_delta = size if op["op"] == "alloc" else -size
            if number(event.get("delta")) != expected_delta:
                details.append("%s: delta %s, the ledger says %d: %s"
                               % (describe(series), event.get("delta"), expected_delta,
                                  describe(op["_key"])))
            position = position_of[op["_index"]]
            seen.add(position)
            highest = max(highest, position)
            # Both orders agree on the set of operations done so far: the
            # trace's sum must be the ledger's live bytes there.
            if highest == count - 1 and len(seen) == count:
                compared += 1
                if running != live_after[highest]:
                    details.append("%s: after %s the trace says %d live bytes, the ledger %d"
                                   % (describe(series), describe(op["_key"]), running,
                                      live_after[highest]))
        # Operations missing on either side leave no common point after
        # them, but the end still tells.
        final = live_after[-1] if live_after else 0
        if running != final:
            details.append("%s: the trace ends with %d live bytes, the ledger with %d"
                           % (describe(series), running, final))
    tap.ok(not details, "running sum of delta equals the ledger's live bytes (%d points)"
           % compared, details)


def series_of(pid, device, kind):
    return (number(pid), device_of(device), kind)


def check_live_end(tap, ledger, trace, dump, excluded_pids):
    """A trace that starts late: the dump's live bytes plus the deltas of
    the events after it end where the ledger ends."""
    expected = collections.Counter()
    for op in ledger:
        if (op["op"] in ("alloc", "free") and op.get("kind") != "graph"
                and number(op.get("pid")) not in excluded_pids):
            size = 0 if op.get("kind") == "vmm_map" else number(op.get("size"), 0)
            expected[series_of(op.get("pid"), op.get("dev"), op.get("kind"))] += (
                size if op["op"] == "alloc" else -size)
    found = collections.Counter()
    for live in dump["lives"]:
        kind = enum_text("kind", live.get("kind"))
        if kind != "vmm_map":
            found[series_of(live.get("vpid"), live.get("device"), kind)] += number(
                live.get("size"), 0)
    begin_ts = number(dump["begin"].get("ts"), 0)
    for event in trace.events:
        if (event["_name"] in MEM_EVENTS and number(event.get("ts"), 0) > begin_ts
                and number(event.get("vpid")) not in excluded_pids):
            found[series_of(event.get("vpid"), event.get("device"),
                            enum_text("kind", event.get("kind")))] += number(
                event.get("delta"), 0)
    details = ["%s: the trace ends with %d live bytes, the ledger with %d"
               % (describe(series), found[series], expected[series])
               for series in sorted(set(expected) | set(found), key=str)
               if found[series] != expected[series]]
    tap.ok(not details, "the dump's live bytes and the deltas after it end as the ledger "
           "(%d series)" % len(set(expected) | set(found)), details)


def check_addresses(tap, trace, dump):
    """No address allocated twice without a free between, no free of an
    address the trace does not hold."""
    live = {}
    details = []
    checked = 0

    def where(event):
        kind = enum_text("kind", event.get("kind"))
        space = "handle" if kind == "vmm_physical" else "address"
        return (event.get("vpid"), space, number(event.get("address")))

    events = [e for e in trace.events if e["_name"] in MEM_EVENTS]
    if dump is not None:
        # A late start: the dump says what was live; events before it do
        # not count.
        begin_ts = number(dump["begin"].get("ts"), 0)
        events = [e for e in events if number(e.get("ts"), 0) > begin_ts]
        for event in dump["lives"]:
            live[where(event)] = event
    for event in sorted(events, key=lambda e: (number(e.get("ts"), 0), e["_index"])):
        checked += 1
        key = where(event)
        name = event["_name"]
        text = "%s %s 0x%x size=%s correlation_id=%s vtid=%s" % (
            name, key[1], key[2] or 0, event.get("size"), event.get("correlation_id"),
            event.get("vtid"))
        if name in ("mem_alloc", "mem_free_failed"):
            if key in live:
                details.append("allocated again without a free between: %s (held since "
                               "correlation_id=%s)" % (text, live[key].get("correlation_id")))
            live[key] = event
        elif number(event.get("size"), 0) == 0 and name == "mem_free":
            details.append("a free of an address the trace never saw allocated: %s" % text)
        elif live.pop(key, None) is None:
            details.append("a free of an address the trace does not hold: %s" % text)
    tap.ok(not details and checked > 0, "no address allocated twice without a free between, "
           "no free of one not allocated (%d memory events)" % checked, details)


def find_dump(trace, reason=None):
    """The first complete statedump (with a reason: the last of that
    reason): {"begin", "end", "lives"} of the events of its process, or
    None."""
    dumps = {}
    order = []
    for event in trace.events:
        name = event["_name"]
        if name not in ("statedump_begin", "mem_live", "statedump_end"):
            continue
        key = (event.get("vpid"), number(event.get("dump")))
        if name == "statedump_begin":
            dumps[key] = {"begin": event, "end": None, "lives": []}
            order.append(key)
        elif key in dumps and name == "mem_live":
            dumps[key]["lives"].append(event)
        elif key in dumps:
            dumps[key]["end"] = event
    found = None
    for key in order:
        dump = dumps[key]
        if dump["end"] is None or number(dump["end"].get("complete")) != 1:
            continue
        if reason is None:
            return dump
        if enum_text("reason", dump["begin"].get("reason")) == reason:
            found = dump
    return found


def ledger_live_set(ledger):
    """The allocations the ledger holds live at its end, by (pid, kind,
    address)."""
    live = {}
    for op in ledger:
        key = (number(op.get("pid")), op.get("kind"), number(op.get("addr")))
        if op["op"] == "alloc":
            live[key] = op
        elif op["op"] == "free":
            live.pop(key, None)
    return live


def check_statedump(tap, trace, dump_ledger, reason):
    dump = find_dump(trace, reason)
    if dump is None:
        tap.ok(False, "the trace has a complete statedump%s" % (
            " of reason %s" % reason if reason else ""),
            ["statedump_begin events: %d, statedump_end events: %d"
             % (len(trace.named("statedump_begin")), len(trace.named("statedump_end")))])
        return
    expected = collections.Counter()
    for op in ledger_live_set(dump_ledger).values():
        stream = number(op.get("stream")) if op.get("kind") == "async" else None
        expected[((number(op.get("pid")), number(op.get("tid"))), op.get("kind"),
                  device_of(op.get("dev")), address_of(op.get("kind"), op.get("addr")),
                  number(op.get("size")), stream, api_text(op.get("api")),
                  number(op.get("corr")))] += 1
    alloc_times = {(number(op.get("pid")), number(op.get("corr"))): number(op.get("t"))
                   for op in dump_ledger if op["op"] == "alloc"}
    found = collections.Counter()
    details = []
    begin_ts = number(dump["begin"].get("ts"), 0)
    for live in dump["lives"]:
        kind = enum_text("kind", live.get("kind"))
        stream = number(live.get("stream")) if kind == "async" else None
        pid = number(live.get("vpid"))
        corr = number(live.get("correlation_id"))
        # The thread that allocated: the ledger's; the trace's mem_live
        # comes from cudatrace's thread, so match on the ledger's tid.
        tid = next((key[0][1] for key in expected if key[0][0] == pid and key[-1] == corr),
                   None)
        found[((pid, tid), kind, device_of(live.get("device")),
               address_of(kind, live.get("address")), number(live.get("size")), stream,
               api_text(trace.api_name(live)), corr)] += 1
        allocated = alloc_times.get((pid, corr))
        alloc_time = number(live.get("alloc_time"), 0)
        if allocated is None or not allocated <= alloc_time <= begin_ts:
            details.append("mem_live correlation_id=%s: alloc_time %d is not between its "
                           "allocation (%s) and the dump (%d)"
                           % (corr, alloc_time, allocated, begin_ts))
    for key in sorted(set(expected) | set(found), key=str):
        if expected[key] != found[key]:
            details.append("%dx in the ledger's live set, %dx in the dump: %s"
                           % (expected[key], found[key], describe(key)))
    entries = number(dump["end"].get("entries"))
    if entries != len(dump["lives"]):
        details.append("statedump_end says %s entries, the dump has %d mem_live"
                       % (entries, len(dump["lives"])))
    tap.ok(not details and dump["lives"], "statedump %s (%s): its %d mem_live are the "
           "ledger's live set then" % (dump["begin"].get("dump"),
                                        enum_text("reason", dump["begin"].get("reason")),
                                        len(dump["lives"])), details)


def check_correlation(tap, trace, matching, allow_missing):
    details = []
    host_by_corr = collections.defaultdict(list)
    for event in matching.trace_ops:
        op = OP_OF_EVENT[event["_name"]]
        if op in GPU_EVENT_OF:
            host_by_corr[(event.get("vpid"), GPU_EVENT_OF[op],
                          number(event.get("correlation_id")))].append(event)
    graph_launches = {(e.get("vpid"), number(e.get("correlation_id")))
                      for e in trace.named("graph_launch")}
    for times in trace.named(*tracecheck.COMPACT_GPU):
        details.append("%s correlation_id=%s has no %s before it"
                       % (times["_name"], times.get("correlation_id"),
                          tracecheck.COMPACT_GPU[times["_name"]]))
    gpu_events = trace.named(*GPU_EVENT_OF.values())
    for gpu in gpu_events:
        key = (gpu.get("vpid"), gpu["_name"], number(gpu.get("correlation_id")))
        hosts = host_by_corr.get(key)
        if not hosts and (key[0], key[2]) in graph_launches:
            continue  # the work of a graph launch (check_graph_work)
        if not hosts:
            details.append("%s correlation_id=%s has no host event"
                           % (gpu["_name"], gpu.get("correlation_id")))
        else:
            # What both events say must agree: the kernel, or the bytes.
            field = "kernel_id" if gpu["_name"] == "gpu_kernel" else "bytes"
            if all(number(h.get(field)) != number(gpu.get(field)) for h in hosts):
                details.append("%s correlation_id=%s: %s %s, the host event %s"
                               % (gpu["_name"], gpu.get("correlation_id"), field,
                                  gpu.get(field), hosts[0].get(field)))
    unmatched = 0
    for key, hosts in host_by_corr.items():
        if not trace.gpu_by_corr.get(key):
            unmatched += len(hosts)
            if not allow_missing:
                details.append("host %s correlation_id=%s has no %s"
                               % (hosts[0]["_name"], key[2], key[1]))
    tap.ok(not details, "every gpu_* event has the correlation id of its host event "
           "(%d GPU events, %d host events without one)" % (len(gpu_events), unmatched), details)


def ledger_gpu_times(matching):
    """(vpid, gpu event, corr) -> [(gpu_start, gpu_end)] from the ledger."""
    times = collections.defaultdict(list)
    for op in matching.ledger_ops + matching.graph_work:
        if op["op"] in GPU_EVENT_OF and "gpu_start" in op:
            key = (op.get("pid"), GPU_EVENT_OF[op["op"]], number(op.get("corr")))
            times[key].append((number(op.get("gpu_start")), number(op.get("gpu_end"))))
    return times


def check_gpu_times(tap, trace, matching):
    times = ledger_gpu_times(matching)
    if not times:
        # Nothing ran on the GPU: nor may the trace say anything did.
        gpu_events = trace.named(*GPU_EVENT_OF.values())
        tap.ok(not gpu_events, "no copy, memset or launch in the ledger, and no gpu_kernel, "
               "gpu_memcpy or gpu_memset in the trace either (%d found)" % len(gpu_events),
               ["%s correlation_id=%s" % (e["_name"], e.get("correlation_id"))
                for e in gpu_events])
        return
    details = []
    compared = 0
    worst = 0
    for gpu in trace.named(*GPU_EVENT_OF.values()):
        key = (gpu.get("vpid"), gpu["_name"], number(gpu.get("correlation_id")))
        if key not in times:
            continue
        compared += 1
        start, end = number(gpu.get("start"), 0), number(gpu.get("end"), 0)
        error = min(max(abs(start - t[0]), abs(end - t[1])) for t in times[key])
        worst = max(worst, error)
        if error > GPU_TIME_TOLERANCE_NS:
            details.append("%s correlation_id=%s: GPU %d..%d, the ledger %s"
                           % (gpu["_name"], key[2], start, end,
                              " or ".join("%d..%d" % t for t in times[key])))
    tap.ok(not details and compared > 0,
           "gpu_* start and end are the ledger's GPU times on CLOCK_MONOTONIC, within %d ns "
           "(%d compared, worst %d ns)" % (GPU_TIME_TOLERANCE_NS, compared, worst), details)


def copy_blocks_host(direction, host, sync):
    """The simulator's rule (README, timing model; API sync behaviour)."""
    if direction == "HtoH":
        return True
    if direction in ("HtoD", "DtoH"):
        return sync or host == "pageable"
    return False


def blocks_host(op):
    """A memcpy of the ledger that blocks the host."""
    return copy_blocks_host(op.get("dir"), op.get("host"), op.get("sync") == "1")


def event_blocks_host(event):
    """A memcpy event of the trace that, by the same rule, blocks the host."""
    return copy_blocks_host(enum_text("direction", event.get("direction")),
                            enum_text("host", event.get("host")),
                            number(event.get("sync")) == 1)


def check_window(tap, trace, matching):
    blocking = [op for op in matching.ledger_ops if op["op"] == "memcpy" and blocks_host(op)]
    if not blocking:
        traced = [e for e in trace.named("memcpy") if event_blocks_host(e)]
        tap.ok(not traced, "no copy in the ledger blocks the host, and none in the trace "
               "either (%d memcpy events)" % len(trace.named("memcpy")),
               ["memcpy correlation_id=%s direction=%s host=%s sync=%s blocks the host"
                % (e.get("correlation_id"), enum_text("direction", e.get("direction")),
                   enum_text("host", e.get("host")), e.get("sync")) for e in traced])
        return
    details = []
    checked = 0
    for op in blocking:
        event = matching.event_of.get(op["_index"])
        if event is None:
            continue
        gpu = trace.gpu_event(event, "gpu_memcpy")
        entry, leave = number(event.get("entry"), 0), number(event.get("ts"))
        if gpu is None or not entry:
            details.append("memcpy correlation_id=%s: no %s" % (
                event.get("correlation_id"),
                "gpu_memcpy" if gpu is None else "entry: it does not record its call"))
            continue
        checked += 1
        start, end = number(gpu.get("start")), number(gpu.get("end"))
        if not entry <= start <= end <= leave:
            details.append("%s correlation_id=%s: GPU %d..%d outside the call %d..%d"
                           % (op.get("api"), event.get("correlation_id"), start, end, entry,
                              leave))
    tap.ok(not details and checked > 0, "the GPU interval of every synchronous copy lies "
           "inside its call's entry/exit window (%d copies)" % checked, details)


def check_drops(tap, ledger, trace):
    expected = collections.Counter(op.get("pid") for op in ledger if op["op"] == "cupti_drop")
    found = collections.Counter()
    for event in trace.named("activity_dropped"):
        found[event.get("vpid")] += number(event.get("count"), 0)
    details = ["pid %s: %d dropped in the ledger, activity_dropped counts sum to %d"
               % (pid, expected[pid], found[pid])
               for pid in sorted(set(expected) | set(found)) if expected[pid] != found[pid]]
    tap.ok(not details and sum(expected.values()) > 0,
           "activity_dropped counts sum to the ledger's cupti_drop lines (%d dropped)"
           % sum(expected.values()), details)


def check_host_funcs(tap, ledger, trace, excluded_pids):
    """Host functions have no event of their own: the calls that enqueue
    them are api_call events, a graph launch that runs them its
    graph_launch (doc/events.md, "Traced calls")."""
    calls = collections.defaultdict(list)
    names = {}
    for event, domain, cbid, corr, _, _ in trace.recorded_calls():
        key = (number(event.get("vpid")), corr)
        calls[key].append(event["_name"])
        names[key] = api_text(trace.call_name(event, domain, cbid))
    ran = [op for op in ledger if op["op"] == "host_func"
           and number(op.get("pid")) not in excluded_pids]
    details = []
    for op in ran:
        key = (number(op.get("pid")), number(op.get("corr")))
        if len(calls[key]) != 1:
            details.append("host function of %s corr=%s: the trace records its call %s" % (
                op.get("api"), op.get("corr"), calls[key] or "nowhere"))
        elif names[key] != api_text(op.get("api")):
            details.append("host function corr=%s: the trace names its call %s, the ledger %s"
                           % (op.get("corr"), names[key], op.get("api")))
    tap.ok(not details and ran, "every host function the ledger ran has the call that "
           "enqueued it recorded once (%d host functions)" % len(ran), details)


def api_recorded(trace):
    """Whether the trace has the API calls (tracer_info api, CUDATRACE_API)."""
    return all(number(e.get("api"), 1) != 0 for e in trace.named("tracer_info"))


def check_calls(tap, ledger, trace, excluded_pids, since):
    """Each traced call recorded once, at its exit (doc/events.md, "Traced
    calls")."""
    details = []
    by_corr = collections.defaultdict(list)
    failed = collections.Counter()
    seen = collections.Counter()
    for event, domain, cbid, corr, result, entry in trace.recorded_calls():
        pid, tid = number(event.get("vpid")), number(event.get("vtid"))
        name = api_text(trace.call_name(event, domain, cbid))
        ts = number(event.get("ts"))
        seen[(pid, tid, corr, domain, cbid)] += 1
        by_corr[(pid, corr)].append((event["_name"], name, result))
        if result:
            failed[(pid, tid, result)] += 1
        if not 0 < entry <= ts:
            details.append("%s of %s pid=%s corr=%s: entry %s, exit %s"
                           % (event["_name"], name, pid, corr, entry, ts))
    details += ["pid=%s tid=%s corr=%s domain=%s cbid=%s: recorded %d times" % (key + (n,))
                for key, n in seen.items() if n > 1]
    details += ["%s in the trace" % e["_name"] for e in trace.named("api_exit")]
    with_api = api_recorded(trace)
    checked = set()
    for op in ledger:
        if op["op"] not in CALL_OPS or op["_index"] < since or op.get("api", "-") == "-" \
                or number(op.get("pid")) in excluded_pids:
            continue
        if not with_api and op["op"] not in SEMANTIC_CALL_OPS:
            continue
        key = (number(op.get("pid")), number(op.get("corr")))
        if key in checked:
            continue
        checked.add(key)
        found = [c for c in by_corr.get(key, []) if c[1] == api_text(op.get("api"))]
        want = RESULT_CODES.get(op.get("error"), 0) if op["op"] == "alloc_failed" else 0
        if len(found) != 1 or found[0][2] != want:
            details.append("%s of %s corr=%s: the trace records %s" % (
                op["op"], op.get("api"), op.get("corr"), found or "nothing"))
    # The ledger names a failed call after the outermost call on its thread
    # (a nested driver call's error is its runtime call's), and has the
    # errors of untraced calls too: those of the calls the trace names.
    traced = collections.defaultdict(set)
    for (pid, _, _), name in trace.api_names.items():
        traced[number(pid)].add(api_text(name))
    errors = collections.Counter()
    for op in ledger:
        pid = number(op.get("pid"))
        if op["op"] == "error" and op["_index"] >= since and pid not in excluded_pids \
                and api_text(op.get("api")) in traced[pid]:
            errors[(pid, number(op.get("tid")),
                    RESULT_CODES.get(op.get("result"), op.get("result")))] += 1
    for key in set(failed) | set(errors):
        if errors[key] != failed[key]:
            details.append("pid=%s tid=%s: %d calls returned %s in the trace, %d in the "
                           "ledger" % (key[0], key[1], failed[key], key[2], errors[key]))
    tap.ok(not details and checked, "every call of the ledger's %d operations is recorded "
           "once, and each of the trace's %d failed calls is an error of the ledger"
           % (len(checked), sum(failed.values())), details)


# ------------------------------------------------------------ compare

def normalized_events(trace):
    """The semantic events of a trace, addresses resolved to the allocation
    they fall in, correlation ids and stream ids left out."""
    live = {}
    result = collections.Counter()

    def where(pid, address):
        for (owner, base), (kind, size, ordinal) in live.items():
            if owner == pid and base <= address < base + max(size, 1):
                return "%s#%d+%d" % (kind, ordinal, address - base)
        return "untracked"

    ordinals = collections.Counter()
    for event in sorted(trace.events, key=lambda e: number(e.get("ts"), 0)):
        name = event["_name"]
        op = OP_OF_EVENT.get(name)
        if name == "graph_launch":
            result[(name, api_text(trace.api_name(event)))] += 1
            continue
        if op is None or event["_index"] in trace.undone:
            continue
        pid = event.get("vpid")
        api = api_text(trace.api_name(event))
        if op == "alloc":
            kind = enum_text("kind", event.get("kind"))
            size = number(event.get("size"), 0)
            ordinals[(pid, kind, size)] += 1
            live[(pid, number(event.get("address")))] = (kind, size, ordinals[(pid, kind, size)])
            result[(name, kind, size, event.get("delta"), api)] += 1
        elif op == "free":
            key = (pid, number(event.get("address")))
            place = live.pop(key, None)
            result[(name, enum_text("kind", event.get("kind")), event.get("size"),
                    event.get("delta"), api, place is not None)] += 1
        elif op == "alloc_failed":
            result[(name, enum_text("kind", event.get("kind")), event.get("size"),
                    event.get("result"), api)] += 1
        elif op == "memcpy":
            result[(name, enum_text("direction", event.get("direction")),
                    where(pid, number(event.get("src"), 0)),
                    where(pid, number(event.get("dst"), 0)), event.get("bytes"),
                    enum_text("host", event.get("host")), event.get("sync"), api)] += 1
        elif op == "memset":
            result[(name, where(pid, number(event.get("address"), 0)), event.get("bytes"),
                    event.get("value"), event.get("element_size"), event.get("sync"), api)] += 1
        elif op == "launch":
            grid, block, shared, _ = launch_config(trace, event)
            result[(name, trace.kernel_name(event), grid, block, shared, api)] += 1
    return result


def compare(tap, trace_a, trace_b, names):
    events_a, events_b = normalized_events(trace_a), normalized_events(trace_b)
    details = []
    for key in sorted(set(events_a) | set(events_b), key=str):
        if events_a[key] != events_b[key]:
            details.append("%dx in %s, %dx in %s: %s" % (events_a[key], names[0],
                                                           events_b[key], names[1],
                                                           describe(key)))
    tap.ok(not details and events_a, "the two traces hold the same semantic events "
           "(%d)" % sum(events_a.values()), details)


# ------------------------------------------------------------ main

ALL_CHECKS = ("readable", "ops", "live", "addresses", "corr", "gputime", "window", "calls")


def main(argv):
    parser = argparse.ArgumentParser(description="compare a cudatrace trace with the ledger")
    parser.add_argument("--ledger")
    parser.add_argument("--trace")
    parser.add_argument("--checks", default=",".join(ALL_CHECKS))
    parser.add_argument("--allow-missing-gpu", action="store_true",
                        help="GPU events may be missing (dropped records, a killed process): "
                        "host events may lack theirs, and a launch whose configuration only "
                        "its gpu_kernel gives is compared without it")
    parser.add_argument("--exclude-pid", type=int, action="append", default=[])
    parser.add_argument("--compare", nargs=2, metavar="EVENTS")
    parser.add_argument("--dump-ledger", help="the ledger as it was while the statedump "
                        "was taken")
    parser.add_argument("--dump-reason", help="the last complete dump of this reason, "
                        "rather than the first")
    parser.add_argument("--after-dump", action="store_true",
                        help="the trace starts while the program runs, at the dump")
    args = parser.parse_args(argv[1:])
    tap = Tap()

    if args.compare:
        traces = [Trace(load_events(path)) for path in args.compare]
        for path, trace in zip(args.compare, traces):
            check_readable(tap, trace)
        compare(tap, traces[0], traces[1], args.compare)
        return tap.done()

    if not args.ledger or not args.trace:
        parser.error("--ledger and --trace are needed (or --compare)")
    ledger = load_ledger(args.ledger)
    trace = Trace(load_events(args.trace))
    checks = [c for c in args.checks.split(",") if c]
    unknown = set(checks) - set(ALL_CHECKS) - {"drops", "statedump", "hostfunc"}
    if unknown:
        parser.error("unknown checks: %s" % ", ".join(sorted(unknown)))
    dump_ledger = load_ledger(args.dump_ledger) if args.dump_ledger else None
    if ("statedump" in checks or args.after_dump) and dump_ledger is None:
        parser.error("the statedump check and --after-dump need --dump-ledger")
    # The ledger's lines up to the dump are the same lines of the whole.
    since = len(open(args.dump_ledger, encoding="utf-8", errors="replace").readlines()) \
        if args.after_dump else 0
    dump = find_dump(trace, args.dump_reason) if args.after_dump else None
    matching = Matching(ledger, trace, set(args.exclude_pid), args.allow_missing_gpu, since)
    tap.ok(bool(matching.ledger_ops), "the ledger has operations (%d)"
           % len(matching.ledger_ops))
    for check in checks:
        if check == "readable":
            check_readable(tap, trace)
        elif check == "ops":
            check_ops(tap, matching, trace)
        elif check == "live" and args.after_dump:
            if dump is None:
                tap.ok(False, "the trace has a complete statedump to start from")
            else:
                check_live_end(tap, ledger, trace, dump, set(args.exclude_pid))
        elif check == "live":
            check_live(tap, matching)
        elif check == "addresses":
            if args.after_dump and dump is None:
                tap.ok(False, "the trace has a complete statedump to start from")
            else:
                check_addresses(tap, trace, dump)
        elif check == "statedump":
            check_statedump(tap, trace, dump_ledger, args.dump_reason)
        elif check == "corr":
            check_correlation(tap, trace, matching, args.allow_missing_gpu)
        elif check == "gputime":
            check_gpu_times(tap, trace, matching)
        elif check == "window":
            check_window(tap, trace, matching)
        elif check == "drops":
            check_drops(tap, ledger, trace)
        elif check == "hostfunc":
            check_host_funcs(tap, ledger, trace, set(args.exclude_pid))
        elif check == "calls":
            check_calls(tap, ledger, trace, set(args.exclude_pid), since)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
