#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make-ctf.py SCENARIO DIR - write a small CTF 1.8 trace laid out as LTTng
writes cudatrace's (provider `cudatrace`, vpid/vtid/procname contexts, a
monotonic clock in ns with an offset to the epoch), with events whose truth
is known, for the report tests that need no LTTng nor tracer.

Scenarios:
  basic       allocations in NVTX ranges, a leak, a failure with NVML
              numbers, CUPTI dropped records, LTTng discarded events (so
              the leaks are possible leaks and the failure's verdict is
              withheld); the truth is printed as JSON on stdout
  accounting  one process per case of the memory accounting (doc/events.md):
              a reclaim at cudaDeviceReset, a release that fails, a
              statedump whose entries come after a concurrent free and a
              mem_alloc after its mem_live, a window that starts after
              allocations (and a failure it cannot blame on others), a
              stream-ordered pool whose records come late and whose memory
              a synchronisation releases; the truth is printed as JSON
  foreign     events of another provider only
  future      tracer_info of a cudatrace major version to come
  old-layout  mem_alloc without its `delta` field
  empty       metadata and a stream file without packets
  strings     names and NVTX messages with invalid UTF-8, quotes, commas,
              newlines and terminal escape sequences, and an empty NVTX
              message pushed after a non-empty one
  lttng       the basic trace laid out on disk as LTTng writes it:
              packetized metadata and an index file per stream
  extremes S  every event, its fields at the ends of their types' ranges
              (sizes of 2^64 - 1, deltas of -2^63, GPU intervals that end
              before they start or at 2^64 - 1), chosen with seed S
  compact     the compact events the tracer writes: kernels whose record
              is gpu_kernel_times (completed from their launch), one full
              gpu_kernel after a launch with its configuration, one
              launch_unconfigured whose configuration only its gpu_kernel
              gives; copies whose record is gpu_memcpy_times (completed from
              their memcpy), a runtime call's copy whose whole record has
              its id as runtime_correlation_id; times whose host event is
              not in the trace; the truth is printed as JSON
  repeats     copies, memsets and launches that repeat their thread's
              earlier event (doc/events.md, "repeat"), one of them across
              a 2^32 ns boundary of the clock; copies and memsets on
              successive slices of a buffer (repeat_moved); repeats whose
              event is not in their thread's slot (another shape took it,
              no shape of theirs was ever written, or another thread
              wrote it) and repeat_moved events whose base is not, or is
              a launch; the truth is printed as JSON
  runs        the same, each thread's repeats in repeat_run events
              (doc/events.md, "repeat_run") written before its next whole
              event, the other thread's by the main thread, naming it
  forms       a few events of one process, each field written here as a
              literal, in each form the reader makes whole: a repeat (its
              entry past 2^32 ns, or its call across 2^33 ns), runs of
              repeats of the writing thread and of another, a repeat that
              stands for nothing, a launch_unconfigured, a gpu_batch of
              copies, a kernel and a shaped kernel, gpu_memcpy_times and
              gpu_kernel_times; decode-expected.sh's expected file holds
              the events they decode to
  processes   two processes, each in a stream file of its own, their
              calls alternating in time; the truth is each one's figures
  bench N     N events of calls allocating and freeing (a live set of a
              thousand buffers), laid out as `cudatrace record` writes
              them (1 MiB packets, a stream file per CPU, interleaved in
              time), for timing the reader against babeltrace2; the truth
              is printed as JSON
  bench-future N
              the same after a tracer_info of a major version to come
  bench-gpu N the same, each allocation followed by a copy into it and a
              <<<>>> launch, their GPU records in gpu_batch events in a
              stream file of their own, their calls repeats where the
              tracer writes repeats, as the tracer writes them all
  flows       copies, memsets and launches on two threads, most of whose
              GPU work starts before their call returns, one at its call's
              entry; the truth (operations, those starting early) is
              printed as JSON
  stacks      an allocation whose call stack lies in objects that
              lttng-ust's statedump names with hostile paths: a FIFO (made
              in DIR), a device, a directory, a missing file, a relative
              path; the report must name them without reading them
  codes       a library whose .nv_fatbin has no code for the device, in a
              process that never launches a kernel of it and in one whose
              launch fails for it: the truth, which gets a verdict, as JSON
  sites       leaks from Python through an extension module (the CUDA
              runtime's, the extension's and the interpreter's frames, with
              the Python frames of the bindings' wrapper and the program's
              lines); the truth, each leak's Python line, printed as JSON
"""
import json
import os
import random
import struct
import sys
import uuid

import ct_contract

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import shapes  # noqa: E402  pylint: disable=wrong-import-position

MAGIC = 0xC1FC1FC1
CLOCK_OFFSET = 1_700_000_000_000_000_000
PACKET_BYTES = 4096

U8, U16, U32, U64, I32, I64 = "uint8_t", "uint16_t", "uint32_t", "uint64_t", "int32_t", "int64_t"
# A NUL-terminated string; a text sequence (a 16-bit length, then the
# bytes: lttng_ust_field_sequence_text); a static array of 16 bytes; a
# sequence of 64-bit integers in hexadecimal (a 16-bit length, then the
# integers: lttng_ust_field_sequence_hex), or of 64-, 32-, 16- or 8-bit
# ones (a batch's columns: lttng_ust_field_sequence).
STR, TEXT, BYTES16 = "string", "text", "bytes16"
SEQX64, SEQ64, SEQ32, SEQ16, SEQ8 = "seqx64", "seq64", "seq32", "seq16", "seq8"
# Each sequence's element: its size in bits, its base, its struct format,
# its type (for the values of the extremes scenario).
SEQ_ELEMENT = {SEQX64: (64, 16, "<Q", U64), SEQ64: (64, 10, "<Q", U64),
               SEQ32: (32, 10, "<I", U32), SEQ16: (16, 10, "<H", U16), SEQ8: (8, 10, "<B", U8)}
PACK = {U8: "<B", U16: "<H", U32: "<I", U64: "<Q", I32: "<i", I64: "<q"}
# LTTng's procname context: a text array of 17 bytes, NUL-padded.
PROCNAME_BYTES = 17

# The CTF type of each type of the event contract (enumerations written as
# their integers, as a reader must accept).
CTF_TYPE = {"U8": U8, "U16": U16, "U32": U32, "U64": U64, "I32": I32, "I64": I64,
            "X32": U32, "X64": U64, "ENUM": U8, "TEXT": TEXT, "STRING": STR,
            "ARRAY_X8[16]": BYTES16, "SEQ_X64": SEQX64, "SEQ_U64": SEQ64,
            "SEQ_U32": SEQ32, "SEQ_U16": SEQ16, "SEQ_U8": SEQ8}

# The events the scenarios write, laid out as the contract says.
WRITTEN = ("api_entry", "api_call", "tracer_info", "api_name", "mem_alloc", "mem_free",
           "mem_alloc_failed", "nvml_sample", "nvtx_push", "nvtx_pop", "activity_dropped",
           "mem_reclaim", "mem_free_failed", "statedump_begin", "mem_live", "statedump_end",
           "context_create", "context_destroy", "sync", "gpu_sync", "gpu_memory",
           "gpu_memory_pool", "kernel_name", "launch", "launch_unconfigured", "gpu_kernel",
           "gpu_kernel_times", "gpu_kernel_shaped", "kernel_shape", "gpu_memcpy_times",
           "gpu_batch", "device_info", "memcpy",
           "gpu_memcpy", "memset", "gpu_memset", "gpu_overhead", "repeat", "repeat_run",
           "repeat_moved", "gpu_memset_times")


def ctf_type(kind):
    """The CTF type of a contract type (a sequence's whatever its length)."""
    return CTF_TYPE[kind.partition("[")[0] if kind.startswith("SEQ_") else kind]


EVENTS = {name: [(field, ctf_type(kind))
                 for field, kind, _, _ in ct_contract.LAYOUTS[ct_contract.EVENTS[name][0]]]
          for name in WRITTEN}


def declaration(field, kind):
    """The TSDL declaration of a payload member, as LTTng-UST writes it."""
    if kind == TEXT:
        return (f"\t\tinteger {{ size = 16; align = 8; signed = 0; encoding = none; base = 10; }} "
                f"__{field}_length;\n"
                f"\t\tinteger {{ size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; }} "
                f"_{field}[ __{field}_length ];")
    if kind == BYTES16:
        return f"\t\tuint8_t _{field}[16];"
    if kind in SEQ_ELEMENT:
        size, base, _, _ = SEQ_ELEMENT[kind]
        return (f"\t\tinteger {{ size = 16; align = 8; signed = 0; encoding = none; base = 10; }} "
                f"__{field}_length;\n"
                f"\t\tinteger {{ size = {size}; align = 8; signed = 0; encoding = none; "
                f"base = {base}; }} _{field}[ __{field}_length ];")
    return f"\t\t{kind} _{field};"


def encode(kind, value):
    """VALUE (an int, a str, bytes or a list of ints) as a member of type KIND."""
    if kind in SEQ_ELEMENT:
        element = SEQ_ELEMENT[kind][2]
        return struct.pack("<H", len(value)) + b"".join(struct.pack(element, v) for v in value)
    if kind in (STR, TEXT, BYTES16):
        data = value if isinstance(value, bytes) else str(value).encode()
        if kind == TEXT:
            return struct.pack("<H", len(data)) + data
        if kind == BYTES16:
            return data[:16].ljust(16, b"\0")
        return data + b"\0"
    return struct.pack(PACK[kind], value)


def metadata(events, provider=ct_contract.PROVIDER, hostname="synthetic"):
    trace_uuid = str(uuid.UUID(int=0x1234))
    lines = [
        "/* CTF 1.8 */",
        "",
        "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;",
        "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;",
        "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;",
        "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;",
        "typealias integer { size = 32; align = 8; signed = true; } := int32_t;",
        "typealias integer { size = 64; align = 8; signed = true; } := int64_t;",
        "",
        "trace {",
        "\tmajor = 1;",
        "\tminor = 8;",
        f'\tuuid = "{trace_uuid}";',
        "\tbyte_order = le;",
        "\tpacket.header := struct {",
        "\t\tuint32_t magic;",
        "\t\tuint8_t uuid[16];",
        "\t\tuint32_t stream_id;",
        "\t};",
        "};",
        "",
        "env {",
        f'\thostname = "{hostname}";',
        '\tdomain = "ust";',
        '\ttracer_name = "lttng-ust";',
        "\ttracer_major = 2;",
        "\ttracer_minor = 13;",
        "};",
        "",
        "clock {",
        '\tname = "monotonic";',
        f'\tuuid = "{str(uuid.UUID(int=0x5678))}";',
        "\tfreq = 1000000000;",
        "\tprecision = 1;",
        f"\toffset = {CLOCK_OFFSET};",
        "\tabsolute = false;",
        "};",
        "",
        "typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := clock_t;",
        "",
        "stream {",
        "\tid = 0;",
        "\tpacket.context := struct {",
        "\t\tclock_t timestamp_begin;",
        "\t\tclock_t timestamp_end;",
        "\t\tuint64_t content_size;",
        "\t\tuint64_t packet_size;",
        "\t\tuint64_t events_discarded;",
        "\t\tuint64_t packet_seq_num;",
        "\t\tuint32_t cpu_id;",
        "\t};",
        "\tevent.header := struct {",
        "\t\tuint32_t id;",
        "\t\tclock_t timestamp;",
        "\t};",
        "\tevent.context := struct {",
        "\t\tint32_t _vpid;",
        "\t\tint32_t _vtid;",
        "\t\tinteger { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } "
        f"_procname[{PROCNAME_BYTES}];",
        "\t};",
        "};",
        "",
    ]
    for event_id, (name, fields) in enumerate(events):
        lines.append("event {")
        # a name with its provider (lttng_ust_statedump:bin_info) is another provider's
        lines.append(f'\tname = "{name if ":" in name else provider + ":" + name}";')
        lines.append(f"\tid = {event_id};")
        lines.append("\tstream_id = 0;")
        lines.append("\tfields := struct {")
        for field, kind in fields:
            lines.append(declaration(field, kind))
        lines.append("\t};")
        lines.append("};")
        lines.append("")
    return "\n".join(lines)


class Stream:
    """Events packed into fixed-size packets, as LTTng's sub-buffers."""

    def __init__(self, events, packet_bytes=PACKET_BYTES, cpu=0):
        self.packet_bytes = packet_bytes
        self.cpu = cpu
        self.ids = {name: i for i, (name, _) in enumerate(events)}
        self.layout = dict(events)
        self.packets = []
        self.current = []
        self.current_bytes = 0  # of the events in self.current
        self.discarded = 0
        self.seq = 0

    def event(self, t, event_name, vpid, vtid, comm, **values):
        body = struct.pack("<I", self.ids[event_name]) + struct.pack("<Q", t)
        name = comm if isinstance(comm, bytes) else comm.encode()
        body += struct.pack("<ii", vpid, vtid) + name[:PROCNAME_BYTES - 1].ljust(PROCNAME_BYTES, b"\0")
        for field, kind in self.layout[event_name]:
            default = 0 if kind in PACK else [] if kind in SEQ_ELEMENT else ""
            body += encode(kind, values.get(field, default))
        if self.current_bytes + len(body) > self.packet_bytes - 128:
            self.flush()
        self.current.append((t, body))
        self.current_bytes += len(body)

    def discard(self, count):
        """LTTng lost COUNT events before the next packet."""
        self.flush()
        self.discarded += count

    def flush(self):
        if self.current:
            self.packets.append((self.current, self.discarded))
            self.current = []
            self.current_bytes = 0

    def data(self):
        self.flush()
        out = []
        for events, discarded in self.packets:
            seq = self.seq
            self.seq += 1
            header = struct.pack("<I", MAGIC) + uuid.UUID(int=0x1234).bytes + struct.pack("<I", 0)
            payload = b"".join(b for _, b in events)
            context_len = 8 * 6 + 4
            content = len(header) + context_len + len(payload)
            context = struct.pack("<QQQQQQI", events[0][0], events[-1][0], content * 8,
                                  self.packet_bytes * 8, discarded, seq, self.cpu)
            packet = header + context + payload
            out.append(packet + b"\0" * (self.packet_bytes - len(packet)))
        self.packets = []
        return b"".join(out)


def write(directory, events, stream, provider=ct_contract.PROVIDER, hostname="synthetic"):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "metadata"), "w") as f:
        f.write(metadata(events, provider, hostname))
    with open(os.path.join(directory, "cudatrace_0"), "wb") as f:
        f.write(stream.data() if stream else b"")


MIB = 1 << 20
GIB_BYTES = 1 << 30
BASE = 0x7F0000000000


def basic(directory):
    """The truth of this scenario is what the test compares the report with."""
    events = list(EVENTS.items())
    s = Stream(events)
    pid, tid, proc = 4242, 4242, "synthetic"
    t = 1_000_000_000
    truth = {"pid": pid, "allocs": []}

    def at(step=1000):
        nonlocal t
        t += step
        return t

    s.event(at(), "tracer_info", pid, tid, proc, version="0.1.0", cupti_version=130001,
            driver_version=13000, api=0)
    s.event(at(), "api_name", pid, tid, proc, domain=2, cbid=20, name="cudaMalloc")
    s.event(at(), "api_name", pid, tid, proc, domain=2, cbid=22, name="cudaFree")
    s.event(at(), "nvml_sample", pid, tid, proc, device=0, reason=1, free=3 * 1024 * MIB,
            used=1024 * MIB, total=4096 * MIB)
    s.event(at(), "mem_alloc", pid, tid, proc, device=0, kind=1, address=BASE, size=8 * MIB,
            delta=8 * MIB, stream=0xFFFFFFFF, api_domain=2, api_cbid=20, correlation_id=1)
    s.event(at(), "nvtx_push", pid, tid, proc, domain=0, message="train")
    leaks = []
    for step in range(3):
        s.event(at(), "nvtx_push", pid, tid, proc, domain=0, message="step")
        s.event(at(), "mem_alloc", pid, tid, proc, device=0, kind=1, address=BASE + 64 * MIB,
                size=16 * MIB, delta=16 * MIB, stream=0xFFFFFFFF, api_domain=2, api_cbid=20,
                correlation_id=10 + step)
        address = BASE + (16 + 2 * step) * MIB
        s.event(at(), "mem_alloc", pid, tid, proc, device=0, kind=1, address=address, size=MIB,
                delta=MIB, stream=0xFFFFFFFF, api_domain=2, api_cbid=20,
                correlation_id=20 + step)
        leaks.append({"address": address, "size": MIB, "alloc_time_ns": t})
        s.event(at(), "mem_free", pid, tid, proc, device=0, kind=1, address=BASE + 64 * MIB,
                size=16 * MIB, delta=-16 * MIB, stream=0xFFFFFFFF, api_domain=2,
                api_cbid=22, correlation_id=30 + step)
        s.event(at(), "nvtx_pop", pid, tid, proc, domain=0)
        if step == 0:
            s.discard(5)
            # the loss begins where the packet before it ends
            truth["discarded_from_ns"] = t
    s.event(at(), "nvtx_pop", pid, tid, proc, domain=0)
    s.event(at(), "mem_alloc_failed", pid, tid, proc, device=0, kind=1, size=2048 * MIB,
            result=2, free=1024 * MIB, total=4096 * MIB, api_domain=2, api_cbid=20,
            correlation_id=40)
    s.event(at(), "activity_dropped", pid, tid, proc, count=7)
    s.event(at(), "mem_free", pid, tid, proc, device=0, kind=1, address=BASE, size=8 * MIB,
            delta=-8 * MIB, stream=0xFFFFFFFF, api_domain=2, api_cbid=22, correlation_id=50)
    # the peak: the 8 MiB buffer, the activations of the last step and three leaks
    truth["peak_bytes"] = 8 * MIB + 16 * MIB + 3 * MIB
    truth["peak_time_ns"] = leaks[2]["alloc_time_ns"]
    truth["leaks"] = leaks
    truth["events"] = sum(len(p[0]) for p in s.packets) + len(s.current)
    truth["discarded_events"] = 5
    truth["dropped_records"] = 7
    truth["end_ns"] = t
    # 3 GiB in use are not its allocations as the trace shows them, but LTTng
    # discarded events before the failure: they may be its own
    truth["failure"] = {"requested_bytes": 2048 * MIB, "free_bytes": 1024 * MIB,
                        "verdict": "unknown", "withheld_verdict": "held_elsewhere"}
    write(directory, events, s)
    return truth


def processes(directory):
    """Two processes, each on a CPU of its own (cudatrace_0, cudatrace_1, as
    per-user buffers lay them out), their calls alternating in time: read in
    two groups, one per file, the records of the two interleave in the
    merge, each file's events all of one process. The truth, per pid, is
    what the report must say of each."""
    events = list(EVENTS.items())
    procs = [(101, "alpha", 2 * MIB, 8, 8), (202, "beta", 3 * MIB, 8, 7)]
    streams = [Stream(events, RECORD_PACKET_BYTES, cpu) for cpu in range(len(procs))]
    t = 1_000_000_000
    for s, (pid, proc, _, _, _) in zip(streams, procs):
        t += 100
        s.event(t, "tracer_info", pid, pid, proc, version="0.1.0", cupti_version=130001,
                driver_version=13000, api=1)
        s.event(t, "api_name", pid, pid, proc, domain=2, cbid=20, name="cudaMalloc")
        s.event(t, "api_name", pid, pid, proc, domain=2, cbid=22, name="cudaFree")
    truth = {}
    correlation = 0

    # Each process's call of STEP, in turn, for those that make as many:
    # their allocations, then their releases (mem_free at the call's entry,
    # then its api_call).
    def calls(released):
        nonlocal t, correlation
        for step in range(8):
            for s, (pid, proc, size, allocs, frees) in zip(streams, procs):
                if step >= (frees if released else allocs):
                    continue
                address = BASE + pid * GIB_BYTES + step * 64 * MIB
                t += 1000
                correlation += 1
                if not released:
                    s.event(t, "mem_alloc", pid, pid, proc, device=0, kind=1, address=address,
                            size=size, delta=size, stream=0xFFFFFFFF, api_domain=2, api_cbid=20,
                            correlation_id=correlation, entry=t - 500)
                    continue
                s.event(t, "mem_free", pid, pid, proc, device=0, kind=1, address=address,
                        size=size, delta=-size, stream=0xFFFFFFFF, api_domain=2, api_cbid=22,
                        correlation_id=correlation)
                t += 500
                s.event(t, "api_call", pid, pid, proc, domain=2, cbid=22,
                        correlation_id=correlation, result=0, entry=t - 1000)

    calls(released=False)
    calls(released=True)
    for pid, proc, size, allocs, frees in procs:
        truth[str(pid)] = {"process": proc, "allocations": allocs, "frees": frees,
                           "peak_bytes": allocs * size,
                           "live_at_end_bytes": (allocs - frees) * size, "unknown_frees": 0}
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "metadata"), "w") as f:
        f.write(metadata(events))
    for cpu, s in enumerate(streams):
        with open(os.path.join(directory, f"cudatrace_{cpu}"), "wb") as f:
            f.write(s.data())
    return truth


def accounting(directory):
    """One process per case; the truth, per pid, is what the report must say."""
    events = list(EVENTS.items())
    s = Stream(events)
    t = 2_000_000_000
    truth = {"processes": {}}
    none = 0xFFFFFFFF

    def at(step=1000):
        nonlocal t
        t += step
        return t

    def mem(name, pid, tid, kind, address, size, corr, cbid=20, delta=None, device=0):
        if delta is None:
            delta = -size if name in ("mem_free", "mem_reclaim") else size
        s.event(at(), name, pid, tid, "acct", device=device, kind=kind, address=address,
                size=size, delta=delta, stream=none, api_domain=2 if cbid else 0,
                api_cbid=cbid, correlation_id=corr)
        return t

    def names(pid):
        s.event(at(), "api_name", pid, pid, "acct", domain=2, cbid=20, name="cudaMalloc")
        s.event(at(), "api_name", pid, pid, "acct", domain=2, cbid=22, name="cudaFree")

    # 101: the program frees B, never A: cudaDeviceReset reclaims A
    pid = 101
    names(pid)
    s.event(at(), "api_name", pid, pid, "acct", domain=2, cbid=164, name="cudaDeviceReset")
    s.event(at(), "context_create", pid, pid, "acct", context=1, device=0, primary=1)
    a_time = mem("mem_alloc", pid, pid, 1, BASE, 4 * MIB, 1)
    mem("mem_alloc", pid, pid, 1, BASE + 4 * MIB, 2 * MIB, 2)
    mem("mem_free", pid, pid, 1, BASE + 4 * MIB, 2 * MIB, 3, cbid=22)
    s.event(at(), "context_destroy", pid, pid, "acct", context=1, device=0, primary=1)
    reset = mem("mem_reclaim", pid, pid, 1, BASE, 4 * MIB, 4, cbid=164)
    truth["processes"][pid] = {
        "peak_bytes": 6 * MIB, "live_at_end_bytes": 0, "leaks": [],
        "reclaimed": [{"address": BASE, "size": 4 * MIB, "alloc_time_ns": a_time,
                       "reclaimed_ns": reset, "reclaimed_by": "cudaDeviceReset"}],
        "caveats": [], "causes": []}

    # 102: A's release fails (its mem_free came at the call's entry) while
    # another thread allocates B: A is live again
    pid = 102
    names(pid)
    s.event(at(), "context_create", pid, pid, "acct", context=2, device=0, primary=1)
    a_time = mem("mem_alloc", pid, pid, 1, BASE, 4 * MIB, 10)
    mem("mem_free", pid, pid, 1, BASE, 4 * MIB, 11, cbid=22)
    b_time = mem("mem_alloc", pid, pid + 1000, 1, BASE + 8 * MIB, 2 * MIB, 12)
    failed = mem("mem_free_failed", pid, pid, 1, BASE, 4 * MIB, 11, cbid=22, delta=4 * MIB)
    truth["processes"][pid] = {
        "peak_bytes": 6 * MIB, "peak_time_ns": failed, "live_at_end_bytes": 6 * MIB,
        "leaks": [{"address": BASE, "size": 4 * MIB, "alloc_time_ns": a_time},
                  {"address": BASE + 8 * MIB, "size": 2 * MIB, "alloc_time_ns": b_time}],
        "failed_frees": 1, "reclaimed": [], "caveats": [], "causes": []}

    # 103: a session started while the program ran. Its statedump begins;
    # the program frees X before X's mem_live comes; Y comes; the dump ends
    # complete. As of the dump both were live. Then a periodic dump gives W
    # before W's mem_alloc (same correlation id): one allocation. The peak is
    # the dump's, at the window's start (the dump's statedump_begin).
    pid = 103
    start = at()
    s.event(start, "statedump_begin", pid, pid + 1000, "acct", dump=1, reason=1)
    names(pid)
    mem("mem_free", pid, pid, 1, BASE, MIB, 20, cbid=22)
    s.event(at(), "mem_live", pid, pid + 1000, "acct", dump=1, device=0, kind=1, address=BASE,
            size=MIB, stream=none, alloc_time=1_000_000, api_domain=2, api_cbid=20,
            correlation_id=5)
    s.event(at(), "mem_live", pid, pid + 1000, "acct", dump=1, device=0, kind=1,
            address=BASE + 4 * MIB, size=2 * MIB, stream=none, alloc_time=1_000_500,
            api_domain=2, api_cbid=20, correlation_id=6)
    s.event(at(), "statedump_end", pid, pid + 1000, "acct", dump=1, entries=2, complete=1)
    z_time = mem("mem_alloc", pid, pid, 1, BASE + 8 * MIB, 512 << 10, 21)
    s.event(at(), "statedump_begin", pid, pid + 1000, "acct", dump=2, reason=2)
    s.event(at(), "mem_live", pid, pid + 1000, "acct", dump=2, device=0, kind=1,
            address=BASE + 4 * MIB, size=2 * MIB, stream=none, alloc_time=1_000_500,
            api_domain=2, api_cbid=20, correlation_id=6)
    w_alloc = t + 500
    s.event(at(), "mem_live", pid, pid + 1000, "acct", dump=2, device=0, kind=1,
            address=BASE + 12 * MIB, size=256 << 10, stream=none, alloc_time=w_alloc,
            api_domain=2, api_cbid=20, correlation_id=22)
    s.event(at(), "mem_live", pid, pid + 1000, "acct", dump=2, device=0, kind=1,
            address=BASE + 8 * MIB, size=512 << 10, stream=none, alloc_time=z_time,
            api_domain=2, api_cbid=20, correlation_id=21)
    s.event(at(), "statedump_end", pid, pid + 1000, "acct", dump=2, entries=3, complete=1)
    mem("mem_alloc", pid, pid, 1, BASE + 12 * MIB, 256 << 10, 22)
    truth["processes"][pid] = {
        "peak_bytes": 3 * MIB, "peak_time_ns": start,
        "live_at_end_bytes": 2 * MIB + (768 << 10), "peak_set": [BASE, BASE + 4 * MIB],
        "leaks": [{"address": BASE + 4 * MIB, "size": 2 * MIB, "alloc_time_ns": 1_000_500},
                  {"address": BASE + 8 * MIB, "size": 512 << 10, "alloc_time_ns": z_time},
                  {"address": BASE + 12 * MIB, "size": 256 << 10, "alloc_time_ns": w_alloc}],
        "allocations": 2, "before_window_allocations": 2, "reclaimed": [], "caveats": [],
        "causes": []}

    # 104: no statedump; the trace's first event frees X, which it never saw
    # allocated: X was live from the window's start, and other allocations
    # made before it may still be live. A failure there cannot be blamed on
    # other processes.
    pid = 104
    first_104 = mem("mem_free", pid, pid, 1, BASE, 4 * MIB, 30, cbid=22)
    names(pid)
    mem("mem_alloc", pid, pid, 1, BASE + 8 * MIB, MIB, 31)
    s.event(at(), "mem_alloc_failed", pid, pid, "acct", device=0, kind=1, size=GIB_BYTES,
            result=2, free=512 * MIB, total=4 * GIB_BYTES, api_domain=2, api_cbid=20,
            correlation_id=32)
    truth["processes"][pid] = {
        "peak_bytes": 4 * MIB, "peak_time_ns": first_104, "live_at_end_bytes": MIB,
        "leaks": [{"address": BASE + 8 * MIB, "size": MIB, "alloc_time_ns": t - 1000}],
        "before_window_allocations": 1, "reclaimed": [],
        "caveats": [["peak_bytes", "lower_bound"], ["live_at_end_bytes", "lower_bound"],
                    ["leaks", "incomplete"]],
        "causes": ["allocations_before_window"],
        "failure": {"verdict": "unknown", "withheld_verdict": "held_elsewhere"}}

    # 105: a stream-ordered pool: an async allocation, a cudaMalloc that makes
    # the peak, both freed, the device synchronised; the pool's records come
    # after all that, as CUPTI hands them over late. At the peak the pool
    # held 64 MiB; the synchronisation gave it back (derived: nothing records
    # that release).
    pid = 105
    names(pid)
    s.event(at(), "context_create", pid, pid, "acct", context=5, device=0, primary=1)
    created = at()
    async_time = mem("mem_alloc", pid, pid, 6, BASE + 64 * MIB, 64 * MIB, 40, cbid=373)
    peak_time = mem("mem_alloc", pid, pid, 1, BASE, 256 * MIB, 41)
    release = mem("mem_free", pid, pid, 6, BASE + 64 * MIB, 64 * MIB, 42, cbid=22)
    mem("mem_free", pid, pid, 1, BASE, 256 * MIB, 43, cbid=22)
    s.event(at(), "sync", pid, pid, "acct", what=1, stream=none, device=0, api_domain=2,
            api_cbid=165, correlation_id=44)
    s.event(at(), "gpu_memory_pool", pid, pid, "acct", timestamp=created, operation=1,
            pool_type=1, address=0, size=0, release_threshold=0, utilized=0, device=0,
            correlation_id=40)
    for ts, op, used in ((async_time, 1, 64 * MIB), (release, 2, 0)):
        s.event(at(), "gpu_memory", pid, pid, "acct", timestamp=ts, operation=op,
                memory_kind=3, address=BASE + 64 * MIB, bytes=64 * MIB, correlation_id=40,
                device=0, context=5, stream=7, is_async=1, pool_type=1,
                pool_address=BASE + 64 * MIB, pool_release_threshold=0,
                pool_size=64 * MIB, pool_utilized=used)
    truth["processes"][pid] = {
        "peak_bytes": 320 * MIB, "peak_time_ns": peak_time, "live_at_end_bytes": 0,
        "leaks": [], "reclaimed": [], "caveats": [], "causes": ["release_at_sync"],
        "at_peak_pool": [64 * MIB, 64 * MIB], "at_end_pool": [0, 0],
        "pools": [{"pool": 1, "address": BASE + 64 * MIB, "created_ns": created,
                   "reserved_bytes": 0, "reserved_derived": True}],
        "frag_caveats": [["at_end.pool_reserved_bytes", "derived"], ["pools", "derived"]]}
    write(directory, events, s)
    return truth


METADATA_MAGIC = 0x75D11D57
METADATA_PACKET_BYTES = 4096
METADATA_HEADER = 37
INDEX_MAGIC = 0xC1F1DCC1


def packetize(text):
    """TEXT as LTTng's packetized metadata: 4 KiB packets, each a 37-byte header
    (magic, UUID, checksum, content and packet sizes in bits, schemes, version
    1.8), the last one padded."""
    data = text.encode()
    room = METADATA_PACKET_BYTES - METADATA_HEADER
    out = b""
    for at in range(0, len(data), room):
        chunk = data[at:at + room]
        header = struct.pack("<I", METADATA_MAGIC) + uuid.UUID(int=0x1234).bytes
        header += struct.pack("<III", 0, (METADATA_HEADER + len(chunk)) * 8,
                              METADATA_PACKET_BYTES * 8)
        header += bytes([0, 0, 0, 1, 8])
        out += (header + chunk).ljust(METADATA_PACKET_BYTES, b"\0")
    return out


def index(stream_data):
    """LTTng's index of a stream file: a big-endian header (magic, version 1.1,
    entry size), then per packet its offset, packet and content sizes (bits),
    first and last times, events discarded, stream id, instance id and
    sequence number."""
    out = struct.pack(">IIII", INDEX_MAGIC, 1, 1, 72)
    for n, at in enumerate(range(0, len(stream_data), PACKET_BYTES)):
        begin, end, content, size, discarded, seq = struct.unpack_from("<QQQQQQ", stream_data,
                                                                       at + 24)
        out += struct.pack(">QQQQQQQQQ", at, size, content, begin, end, discarded, 0, 0, seq)
    return out


def lttng(directory):
    """The basic trace, on disk as LTTng writes it."""
    truth = basic(directory)
    with open(os.path.join(directory, "metadata")) as f:
        text = f.read()
    with open(os.path.join(directory, "metadata"), "wb") as f:
        f.write(packetize(text))
    with open(os.path.join(directory, "cudatrace_0"), "rb") as f:
        data = f.read()
    os.makedirs(os.path.join(directory, "index"), exist_ok=True)
    with open(os.path.join(directory, "index", "cudatrace_0.idx"), "wb") as f:
        f.write(index(data))
    return truth


def foreign(directory):
    events = [("thing", [("value", U32)])]
    s = Stream(events)
    for i in range(10):
        s.event(1000 + i, "thing", 1, 1, "other", value=i)
    write(directory, events, s, provider="other")


def future(directory):
    events = list(EVENTS.items())
    s = Stream(events)
    s.event(1000, "tracer_info", 1, 1, "p", version="9.0.0")
    s.event(2000, "mem_alloc", 1, 1, "p", device=0, kind=1, address=BASE, size=MIB, delta=MIB)
    write(directory, events, s)


def old_layout(directory):
    events = list(EVENTS.items())
    events = [(n, [f for f in fields if not (n == "mem_alloc" and f[0] == "delta")])
              for n, fields in events]
    s = Stream(events)
    s.event(1000, "mem_alloc", 1, 1, "p", device=0, kind=1, address=BASE, size=MIB)
    write(directory, events, s)


# What `cudatrace record` writes (cli/record-options.c, cli/session.c):
# sub-buffers of 1 MiB, a stream file per CPU of channel `cudatrace`.
RECORD_PACKET_BYTES = 1 << 20
BENCH_CPUS = 2
# Calls a thread makes on one CPU before the scheduler moves it to the other.
BENCH_CALLS_PER_CPU = 64
# Records a gpu_batch holds at most (the contract's CT_GPU_BATCH_MAX, its
# columns' length).
BATCH_MAX = int(dict((f, k) for f, k, _, _ in
                     ct_contract.LAYOUTS[ct_contract.EVENTS["gpu_batch"][0]])["record"]
                .partition("[")[2].rstrip("]"))


def bench(directory, count, version=None, gpu=False):
    """Streams COUNT events to disk, as `cudatrace record` lays them out:
    1 MiB packets, written as they fill, in a stream file per CPU
    (cudatrace_0, cudatrace_1), the thread moving from one CPU to the
    other every BENCH_CALLS_PER_CPU calls, so that the files' events
    interleave in time. Returns the truth: events, allocations, frees,
    peak and live bytes. With VERSION, a tracer_info of that version
    comes first. With GPU, each allocation is followed by what
    bench/call-loop's round makes: a copy (memcpy) and a <<<>>> launch
    (launch_unconfigured, its shape written once), whose GPU records go,
    as the tracer writes them, in gpu_batch events of BATCH_MAX records
    each, in a stream file of their own (cudatrace-gpu_0) as in the
    record's channel of GPU events."""
    events = list(EVENTS.items())
    cpus = [Stream(events, RECORD_PACKET_BYTES, cpu) for cpu in range(BENCH_CPUS)]
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "metadata"), "w") as f:
        f.write(metadata(events))
    outs = [open(os.path.join(directory, f"cudatrace_{cpu}"), "wb") for cpu in range(BENCH_CPUS)]
    s = cpus[0]
    pid, proc = 777, "bench"
    t = 1_000_000_000
    n, i = 2, 0
    if version:
        s.event(t, "tracer_info", pid, pid, proc, version=version)
        n += 1
    s.event(t, "api_name", pid, pid, proc, domain=2, cbid=20, name="cudaMalloc")
    s.event(t, "api_name", pid, pid, proc, domain=2, cbid=22, name="cudaFree")
    g = Stream(events, RECORD_PACKET_BYTES) if gpu else None
    if gpu:
        gpu_out = open(os.path.join(directory, "cudatrace-gpu_0"), "wb")
        s.event(t, "api_name", pid, pid, proc, domain=2, cbid=41, name="cudaMemcpyAsync")
        s.event(t, "api_name", pid, pid, proc, domain=2, cbid=505, name="__cudaLaunchKernel")
        s.event(t, "kernel_name", pid, pid, proc, kernel_id=0xB2, name="bench_kernel")
        g.event(t, "kernel_shape", pid, pid, proc, shape_id=5, stream=7, grid_x=64, grid_y=1,
                grid_z=1, block_x=256, block_y=1, block_z=1, registers=32)
        n += 4

    # One traced call (doc/events.md, "Traced calls"): an allocation is its
    # mem_alloc, which records the call; a release is its mem_free, at its
    # ENTER, then its api_call. Returns the number of events.
    def call(name, cbid, address, delta):
        nonlocal t
        t += 500
        entry = t
        t += 500
        s.event(t, name, pid, pid, proc, device=0, kind=1, address=address, size=MIB,
                delta=delta, stream=0xFFFFFFFF, api_domain=2, api_cbid=cbid, correlation_id=i,
                entry=entry if name == "mem_alloc" else 0)
        if name == "mem_alloc":
            return 1
        t += 500
        s.event(t, "api_call", pid, pid, proc, domain=2, cbid=cbid, correlation_id=i, result=0,
                entry=entry)
        return 2

    # A copy into the new allocation and a launch, each with its record in
    # the batch being filled (doc/events.md, "gpu_batch": a copy's, a
    # shaped kernel's), written once full, after the calls it records, as
    # the tracer writes it when CUPTI hands it the buffer. A call whose
    # shape its thread's slot holds is a repeat, as the tracer writes it
    # (doc/events.md, "repeat"): the launch is the same each time, each
    # copy the same as a thousand allocations before, and the copies' and
    # the launch's shapes take each other's slots at times. Correlation
    # ids follow the calls'. Returns the number of events.
    batch = []  # (kind, correlation id, start), of 300 ns each
    thread = shapes.Thread()
    launch = dict(kernel_id=0xB2, device=0, api_domain=2, api_cbid=505)
    launch_shape = shapes.shape("launch_unconfigured", launch)
    copy_shapes = {}  # address -> (its copy's fields, their shape)

    def host_event(name, fields, value, corr, entry):
        if thread.repeats(value, entry):
            s.event(t, "repeat", pid, pid, proc, shape=value, correlation_id=corr,
                    entry_low=entry & 0xFFFFFFFF)
        else:
            s.event(t, name, pid, pid, proc, correlation_id=corr, entry=entry, **fields)

    def flush():
        if not batch:
            return 0
        base = batch[0][2]
        copies = sum(1 for b in batch if b[0] == 0)
        kernels = len(batch) - copies
        g.event(t + 1000, "gpu_batch", pid, pid, proc, base=base, context=1, device=0,
                record=[b[0] for b in batch], correlation_id=[b[1] for b in batch],
                start=[b[2] - base for b in batch], duration=[300] * len(batch),
                direction=[1] * copies, src_kind=[2] * copies, dst_kind=[3] * copies,
                static_shared_mem=[], registers=[], shape_id=[5] * kernels)
        batch.clear()
        return 1

    def work(address):
        nonlocal t
        n = 0
        for corr in (2 * i + 1_000_000, 2 * i + 1_000_001):
            t += 500
            entry = t
            t += 500
            if corr % 2 == 0:
                if address not in copy_shapes:
                    copy = dict(direction=1, src=0x7000_0000, dst=address, bytes=4096, host=2,
                                sync=0, stream=7, src_device=255, dst_device=0, api_domain=2,
                                api_cbid=41)
                    copy_shapes[address] = (copy, shapes.shape("memcpy", copy))
                host_event("memcpy", *copy_shapes[address], corr, entry)
                batch.append((0, corr, t + 100))
            else:
                host_event("launch_unconfigured", launch, launch_shape, corr, entry)
                batch.append((2, corr, t + 100))
            n += 1
        if len(batch) >= BATCH_MAX:
            n += flush()
        return n

    while n < count:
        s = cpus[(i // BENCH_CALLS_PER_CPU) % BENCH_CPUS]
        # each slot's buffer is freed a thousand allocations later
        address = BASE + (i % 1000) * 2 * MIB
        if i >= 1000:
            n += call("mem_free", 22, address, -MIB)
        n += call("mem_alloc", 20, address, MIB)
        if gpu:
            n += work(address)
        i += 1
        if len(s.packets) > 4:
            outs[s.cpu].write(s.data())
        if gpu and len(g.packets) > 4:
            gpu_out.write(g.data())
    for cpu, out in zip(cpus, outs):
        out.write(cpu.data())
        out.close()
    if gpu:
        n += flush()
        gpu_out.write(g.data())
        gpu_out.close()
    frees = max(i - 1000, 0)
    return {"events": n, "allocations": i, "frees": frees,
            "peak_bytes": min(i, 1000) * MIB, "live_at_end_bytes": (i - frees) * MIB}


# Bytes a traced program may put in its names and messages: terminal escape
# sequences (clear the screen, set the title, a C1 CSI), a forged line,
# bytes that are not UTF-8 (a lone continuation, an overlong '/', a
# truncated sequence), a bidirectional override, CSV's separators.
HOSTILE = {
    "procname": b"ev\x1b[2Jil,\"q\xff",
    "api": b"cudaMal\x1b]0;pwned\x07loc,\"x\"",
    "range": b"train,\"a\"\r\nFAKE: 0 leaks\x1b[31m<script>x</script>",
    "step": b"\xff\xfestep\xc0\xaf\xc2\x9b[2J\xe2\x80\xae",
    "kernel": b"_Z6kernel\x1b[H\x1b[2J\n,\"\x7f\xe2\x82",
    "device": b"Sim\x08\x08\x08GPU\t\"0\",\x9b",
}


def strings(directory):
    """Hostile names and messages, and an empty NVTX message after a
    non-empty one (process 2, whose leak's range path must be "outer/")."""
    events = list(EVENTS.items())
    s = Stream(events)
    pid, tid, proc = 4343, 4343, HOSTILE["procname"]
    t = 1_000_000_000

    def at(step=1000):
        nonlocal t
        t += step
        return t

    s.event(at(), "tracer_info", pid, tid, proc, version="0.1.0", procname=HOSTILE["procname"],
            cupti_version=130001, driver_version=13000, api=1)
    s.event(at(), "device_info", pid, tid, proc, device=0, name=HOSTILE["device"],
            global_memory=4096 * MIB, memory_bandwidth=10**12)
    s.event(at(), "api_name", pid, tid, proc, domain=2, cbid=20, name=HOSTILE["api"])
    s.event(at(), "api_name", pid, tid, proc, domain=2, cbid=211, name="cudaLaunchKernel")
    s.event(at(), "nvml_sample", pid, tid, proc, device=0, reason=1, free=3 * 1024 * MIB,
            used=1024 * MIB, total=4096 * MIB)
    s.event(at(), "nvtx_push", pid, tid, proc, domain=0, message=HOSTILE["range"])
    s.event(at(), "nvtx_push", pid, tid, proc, domain=0, message=HOSTILE["step"])
    for i in range(3):
        s.event(at(), "mem_alloc", pid, tid, proc, device=0, kind=1, address=BASE + i * MIB,
                size=MIB, delta=MIB, stream=0xFFFFFFFF, api_domain=2, api_cbid=20,
                correlation_id=1 + i)
    s.event(at(), "kernel_name", pid, tid, proc, kernel_id=0x1234, name=HOSTILE["kernel"])
    s.event(at(), "launch", pid, tid, proc, kernel_id=0x1234, grid_x=1, grid_y=1, grid_z=1,
            block_x=32, block_y=1, block_z=1, config_known=1, stream=7, device=0,
            api_domain=2, api_cbid=211, correlation_id=10)
    s.event(at(), "gpu_kernel", pid, tid, proc, start=t + 100, end=t + 5100, correlation_id=10,
            kernel_id=0x1234, device=0, context=1, stream=7, grid_x=1, grid_y=1, grid_z=1,
            block_x=32, block_y=1, block_z=1)
    s.event(at(), "mem_alloc_failed", pid, tid, proc, device=0, kind=1, size=8192 * MIB,
            result=2, free=1024 * MIB, total=4096 * MIB, api_domain=2, api_cbid=20,
            correlation_id=20)
    # a copy in the hostile ranges, through the hostile API: a transfer hotspot
    s.event(at(), "memcpy", pid, tid, proc, direction=1, src=0x7000_0000, dst=BASE,
            bytes=MIB, host=1, sync=1, stream=0, src_device=0, dst_device=0, api_domain=2,
            api_cbid=20, correlation_id=30)
    s.event(at(), "gpu_memcpy", pid, tid, proc, start=t + 100, end=t + 90100, correlation_id=30,
            direction=1, src_kind=1, dst_kind=2, bytes=MIB, device=0, context=1, stream=0)
    s.event(at(100_000), "nvtx_pop", pid, tid, proc, domain=0)
    s.event(at(), "nvtx_pop", pid, tid, proc, domain=0)
    # the empty message, in a process of its own
    pid2 = 4444
    s.event(at(), "api_name", pid2, pid2, "empty", domain=2, cbid=20, name="cudaMalloc")
    s.event(at(), "nvtx_push", pid2, pid2, "empty", domain=0, message="outer")
    s.event(at(), "nvtx_push", pid2, pid2, "empty", domain=0, message="")
    s.event(at(), "mem_alloc", pid2, pid2, "empty", device=0, kind=1, address=BASE, size=MIB,
            delta=MIB, stream=0xFFFFFFFF, api_domain=2, api_cbid=20, correlation_id=1)
    s.event(at(), "nvtx_pop", pid2, pid2, "empty", domain=0)
    s.event(at(), "nvtx_pop", pid2, pid2, "empty", domain=0)
    write(directory, events, s, hostname="synthetic, \\\"quoted\\\" h\u00f4te")
    return {"pid": pid, "empty_pid": pid2, "empty_nvtx_path": "outer/",
            "hostile": {k: v.decode("utf-8", "replace") for k, v in HOSTILE.items()}}


def compact(directory):
    """Kernels, copies and memsets in the forms the tracer writes
    (doc/events.md, launch_unconfigured, gpu_kernel_times,
    gpu_kernel_shaped and its kernel_shape, gpu_memcpy_times,
    gpu_memset_times, gpu_batch)."""
    events = list(EVENTS.items())
    s = Stream(events)
    pid, tid, proc = 4545, 4545, "kernels"
    t = 1_000_000_000

    def at(step=1000):
        nonlocal t
        t += step
        return t

    # a process without a launch comes first: the join holds nothing for it
    s.event(at(), "tracer_info", 4646, 4646, "idle", version="0.1.0", cupti_version=130001,
            driver_version=13000, api=1)
    s.event(at(), "tracer_info", pid, tid, proc, version="0.1.0", cupti_version=130001,
            driver_version=13000, api=1)
    s.event(at(), "api_name", pid, tid, proc, domain=2, cbid=211, name="cudaLaunchKernel")
    s.event(at(), "kernel_name", pid, tid, proc, kernel_id=0xA1, name="gemm")
    s.event(at(), "kernel_name", pid, tid, proc, kernel_id=0xB2, name="relu")
    kernels = []

    def launch(corr, kernel_id, grid, block, shared, stream):
        entry = at()
        s.event(at(), "launch", pid, tid, proc, kernel_id=kernel_id, grid_x=grid[0],
                grid_y=grid[1], grid_z=grid[2], block_x=block[0], block_y=block[1],
                block_z=block[2], shared_mem=shared, config_known=1, stream=stream,
                device=0, api_domain=2, api_cbid=211, correlation_id=corr, entry=entry)

    # gemm, 3 runs known only from their launch: the report must have its
    # configuration, stream and dynamic shared memory from there
    for i in range(3):
        launch(100 + i, 0xA1, (64, 2, 1), (256, 1, 1), 1024, 7)
        start = t + 500
        s.event(at(), "gpu_kernel_times", pid, tid, proc, start=start, end=start + 2000 * (i + 1),
                correlation_id=100 + i, context=1, static_shared_mem=512, registers=40)
        kernels.append(("gemm", 2000 * (i + 1)))
    # a kernel that ran before its name came (its module's name event
    # late): the report names both runs by its name, the export the first
    # by its id
    for corr in (120, 121):
        if corr == 121:
            s.event(at(), "kernel_name", pid, tid, proc, kernel_id=0xC3, name="late")
        launch(corr, 0xC3, (1, 1, 1), (32, 1, 1), 0, 7)
        start = t + 500
        s.event(at(), "gpu_kernel_times", pid, tid, proc, start=start, end=start + 1500,
                correlation_id=corr, context=1, static_shared_mem=0, registers=8)
        kernels.append(("late", 1500))
    # relu: a launch whose record came whole (the tracer's race), and one
    # whose configuration only its record gives
    launch(110, 0xB2, (8, 1, 1), (128, 1, 1), 0, 7)
    s.event(at(), "gpu_kernel", pid, tid, proc, start=t + 500, end=t + 1500, correlation_id=110,
            kernel_id=0xB2, device=0, context=1, stream=7, grid_x=8, grid_y=1, grid_z=1,
            block_x=128, block_y=1, block_z=1, registers=16)
    kernels.append(("relu", 1000))
    entry = at()
    s.event(at(), "launch_unconfigured", pid, tid, proc, kernel_id=0xB2, device=0,
            api_domain=2, api_cbid=211, correlation_id=111, entry=entry)
    s.event(at(), "gpu_kernel", pid, tid, proc, start=t + 500, end=t + 1500, correlation_id=111,
            kernel_id=0xB2, device=0, context=1, stream=7, grid_x=8, grid_y=1, grid_z=1,
            block_x=128, block_y=1, block_z=1, registers=16)
    kernels.append(("relu", 1000))
    # and one whose record names its configuration by a kernel_shape (its
    # kernel and device from the launch_unconfigured)
    entry = at()
    s.event(at(), "launch_unconfigured", pid, tid, proc, kernel_id=0xB2, device=0,
            api_domain=2, api_cbid=211, correlation_id=112, entry=entry)
    s.event(at(), "kernel_shape", pid, tid, proc, shape_id=5, stream=7, grid_x=8, grid_y=1,
            grid_z=1, block_x=128, block_y=1, block_z=1, registers=16)
    s.event(at(), "gpu_kernel_shaped", pid, tid, proc, start=t + 500, end=t + 1500,
            correlation_id=112, context=1, shape_id=5)
    kernels.append(("relu", 1000))
    # a shaped record whose shape is not in the trace: its launch has no run
    entry = at()
    s.event(at(), "launch_unconfigured", pid, tid, proc, kernel_id=0xB2, device=0,
            api_domain=2, api_cbid=211, correlation_id=113, entry=entry)
    s.event(at(), "gpu_kernel_shaped", pid, tid, proc, start=t + 500, end=t + 77500,
            correlation_id=113, context=1, shape_id=9)
    # copies: two whose record is their times (one on stream 7, the other on
    # the legacy stream's id 1), one whose whole record knows it by its
    # runtime_correlation_id
    s.event(at(), "api_name", pid, tid, proc, domain=2, cbid=41, name="cudaMemcpyAsync")
    copies = []

    def copy(corr, size, stream, times):
        entry = at()
        s.event(at(), "memcpy", pid, tid, proc, direction=1, src=0x7000_0000, dst=BASE,
                bytes=size, host=2, sync=0, stream=stream, src_device=255, dst_device=0,
                api_domain=2, api_cbid=41, correlation_id=corr, entry=entry)
        start = t + 300
        if times is None:
            pass  # its times come in a batch
        elif times:
            s.event(at(), "gpu_memcpy_times", pid, tid, proc, start=start, end=start + 4000,
                    correlation_id=corr, context=1, direction=1, src_kind=2, dst_kind=3,
                    device=0)
        else:
            s.event(at(), "gpu_memcpy", pid, tid, proc, start=start, end=start + 4000,
                    correlation_id=corr + 1000, runtime_correlation_id=corr, direction=1,
                    src_kind=2, dst_kind=3, bytes=size, device=0, src_device=255,
                    dst_device=255, context=1, stream=stream)
        copies.append(size)

    copy(200, 3 * MIB, 7, True)
    copy(201, MIB, 1, True)
    copy(202, 2 * MIB, 7, False)
    # memsets: one whose record is its times, one whose record came whole,
    # and one in the batch below; bytes, value and stream are the memset's
    s.event(at(), "api_name", pid, tid, proc, domain=2, cbid=48, name="cudaMemsetAsync")
    memsets = []  # (bytes, value, stream, duration)

    def memset(corr, size, value, stream, times):
        entry = at()
        s.event(at(), "memset", pid, tid, proc, device=0, address=BASE, bytes=size, value=value,
                element_size=1, sync=0, stream=stream, api_domain=2, api_cbid=48,
                correlation_id=corr, entry=entry)
        start = t + 300
        if times:
            s.event(at(), "gpu_memset_times", pid, tid, proc, start=start, end=start + 2500,
                    correlation_id=corr, context=1, device=0)
        elif times is not None:
            s.event(at(), "gpu_memset", pid, tid, proc, start=start, end=start + 2500,
                    correlation_id=corr, bytes=size, value=value, memory_kind=3, device=0,
                    context=1, stream=stream)
        memsets.append((size, value, stream, 2500 if times is not None else 7000))

    memset(300, MIB, 0xAB, 7, True)
    memset(301, 2 * MIB, 0, 1, False)
    # a gpu_batch after its host events, as the tracer writes it once
    # CUPTI's buffer is read: two copies on the two streams, a gemm run
    # between them and a shaped relu run last, each its own start and
    # duration, and the columns of its kind in the order of its records
    batched = []  # (kind, correlation id, start, duration)
    for corr, size, stream, duration in ((203, 5 * MIB, 7, 6000), (204, 7 * MIB, 1, 9000)):
        copy(corr, size, stream, None)
        batched.append((0, corr, t + 300, duration))
        if corr == 203:
            launch(103, 0xA1, (64, 2, 1), (256, 1, 1), 1024, 7)
            batched.append((1, 103, t + 500, 5000))
            kernels.append(("gemm", 5000))
    memset(302, 3 * MIB, 0x11, 7, None)
    batched.append((3, 302, t + 300, 7000))
    entry = at()
    s.event(at(), "launch_unconfigured", pid, tid, proc, kernel_id=0xB2, device=0,
            api_domain=2, api_cbid=211, correlation_id=114, entry=entry)
    batched.append((2, 114, t + 500, 3000))
    kernels.append(("relu", 3000))
    base = batched[0][2]
    s.event(at(), "gpu_batch", pid, tid, proc, base=base, context=1, device=0,
            record=[b[0] for b in batched], correlation_id=[b[1] for b in batched],
            start=[b[2] - base for b in batched], duration=[b[3] for b in batched],
            direction=[1, 1], src_kind=[2, 2], dst_kind=[3, 3], static_shared_mem=[512],
            registers=[40], shape_id=[5])
    # times whose host event is not in the trace: counted, not analysed
    s.event(at(), "gpu_kernel_times", pid, tid, proc, start=t + 500, end=t + 99500,
            correlation_id=99, context=1, registers=8)
    s.event(at(), "gpu_memcpy_times", pid, tid, proc, start=t + 500, end=t + 99500,
            correlation_id=98, context=1, direction=1, src_kind=2, dst_kind=3, device=0)
    s.event(at(), "gpu_kernel_shaped", pid, tid, proc, start=t + 500, end=t + 99500,
            correlation_id=97, context=1, shape_id=5)
    s.event(at(), "gpu_memset_times", pid, tid, proc, start=t + 500, end=t + 99500,
            correlation_id=96, context=1, device=0)
    write(directory, events, s)
    return {"pid": pid, "unmatched_gpu_records": 5, "launches_without_kernel": 1,
            "memsets": [list(m) for m in memsets],
            "transfers": {"copies": len(copies), "bytes": sum(copies), "gpu_records": 5,
                          "gpu_time_ns": 4000 * 3 + sum(b[3] for b in batched if b[0] == 0),
                          "gpu_records_unmatched": 0,
                          "copies_without_gpu_record": 0},
            "kernels": {name: {"count": sum(1 for n, _ in kernels if n == name),
                               "total_ns": sum(d for n, d in kernels if n == name)}
                        for name, _ in kernels},
            "exported_names": {"late": {"before": "kernel 0xc3", "runs_before": 1}},
            "gemm": {"grid": {"x": 64, "y": 2, "z": 1}, "block": {"x": 256, "y": 1, "z": 1},
                     "shared_mem_bytes": 512 + 1024, "registers_per_thread": 40,
                     "stream": 7, "launch_latency_count": 4},
            "relu": {"launches": 5, "launch_latency_count": 4,
                     "grid": {"x": 8, "y": 1, "z": 1}}}


def repeats(directory, runs=False):
    """Copies, memsets and launches written whole, then repeated by their
    thread (doc/events.md, "repeat"), and repeats that stand for nothing
    in the trace. With RUNS, each thread's repeats are kept and written in
    a repeat_run before the next whole event, as the tracer writes them,
    the other thread's by the main thread (its tid in the run), their
    records after it."""
    events = list(EVENTS.items())
    s = Stream(events)
    pid, proc = 5151, "repeats"
    main_tid, other_tid = 5151, 5152
    t = 1_000_000_000
    truth = {"pid": pid, "copies": 0, "bytes": 0, "copy_host_ns": 0, "copy_gpu_ns": 0,
             "unmatched_repeats": 0, "unmatched_gpu_records": 0,
             "calls": {"cudaMemcpyAsync": 0, "cudaMemsetAsync": 0, "cudaLaunchKernel": 0,
                       "__cudaLaunchKernel": 0},
             "kernels": {"gemm": 0, "relu": 0}}
    names = {"memcpy": "cudaMemcpyAsync", "memset": "cudaMemsetAsync",
             "launch": "cudaLaunchKernel", "launch_unconfigured": "__cudaLaunchKernel"}
    cbids = {"memcpy": 41, "memset": 48, "launch": 211, "launch_unconfigured": 430}

    def at(step=1000):
        nonlocal t
        t += step
        return t

    s.event(at(), "tracer_info", pid, main_tid, proc, version="0.1.0", cupti_version=130001,
            driver_version=13000, api=1)
    for kind, cbid in cbids.items():
        s.event(at(), "api_name", pid, main_tid, proc, domain=2, cbid=cbid, name=names[kind])
    s.event(at(), "kernel_name", pid, main_tid, proc, kernel_id=0xA1, name="gemm")
    s.event(at(), "kernel_name", pid, main_tid, proc, kernel_id=0xB2, name="relu")
    s.event(at(), "kernel_shape", pid, main_tid, proc, shape_id=5, stream=7, grid_x=8,
            grid_y=1, grid_z=1, block_x=128, block_y=1, block_z=1, registers=16)

    def gpu_record(kind, corr, fields, counted=True):
        """The GPU record of call CORR, in its compact form."""
        start = t + 300
        duration = 2000 + corr
        if kind == "memcpy":
            s.event(at(), "gpu_memcpy_times", pid, main_tid, proc, start=start,
                    end=start + duration, correlation_id=corr, context=1,
                    direction=fields["direction"], src_kind=2, dst_kind=3, device=0)
            if counted:
                truth["copy_gpu_ns"] += duration
        elif kind == "launch":
            s.event(at(), "gpu_kernel_times", pid, main_tid, proc, start=start,
                    end=start + duration, correlation_id=corr, context=1, registers=40)
        elif kind == "launch_unconfigured":
            s.event(at(), "gpu_kernel_shaped", pid, main_tid, proc, start=start,
                    end=start + duration, correlation_id=corr, context=1, shape_id=5)

    def counted(kind, fields, host_ns):
        """A call the report must have."""
        truth["calls"][names[kind]] += 1
        if kind == "memcpy":
            truth["copies"] += 1
            truth["bytes"] += fields["bytes"]
            truth["copy_host_ns"] += host_ns
        elif kind in ("launch", "launch_unconfigured"):
            truth["kernels"]["gemm" if fields["kernel_id"] == 0xA1 else "relu"] += 1

    # tid -> the repeats not yet written: (shape, corr, exit, duration, record,
    # moved: (base, src, dst, bytes) or None)
    kept = {}

    def flush():
        """Each thread's kept repeats in a repeat_run, then their records."""
        for tid, calls in kept.items():
            if not calls:
                continue
            base = calls[0][2]
            moved = [(i, c[5]) for i, c in enumerate(calls) if c[5]]
            s.event(at(), "repeat_run", pid, main_tid, proc, base=base,
                    tid=0 if tid == main_tid else tid,
                    shape=[c[0] for c in calls], correlation_id=[c[1] for c in calls],
                    exit=[c[2] - base for c in calls], duration=[c[3] for c in calls],
                    moved=[v for i, m in moved for v in (i,) + m])
            for call in calls:
                if call[4]:
                    call[4]()
        kept.clear()

    def whole(kind, corr, **fields):
        """KIND's event, whole, for call CORR: its shape."""
        flush()
        entry = at()
        layout = ct_contract.EVENTS[kind][0]
        values = {field: fields.get(field, 0) for field, _, _, _ in ct_contract.LAYOUTS[layout]}
        values.update(api_domain=2, api_cbid=cbids[kind], correlation_id=corr, entry=entry)
        s.event(at(), kind, pid, main_tid, proc, **values)
        counted(kind, values, t - entry)
        gpu_record(kind, corr, values)
        return shapes.shape(layout, values), values

    def repeat(kind, corr, shape, values, tid=main_tid, call_ns=700, resolved=True,
               record=True, moved=None):
        """A repeat of SHAPE, of KIND's event VALUES, for call CORR, which took
        CALL_NS; its GPU record after it when RECORD. MOVED (base, src, dst):
        a repeat_moved, VALUES those of the event it makes."""
        entry = at()
        exit_ns = at(call_ns)
        if not runs and moved:
            s.event(exit_ns, "repeat_moved", pid, tid, proc, base=moved[0], src=moved[1],
                    dst=moved[2], bytes=moved[3], correlation_id=corr,
                    entry_low=entry & 0xFFFFFFFF)
        elif not runs:
            s.event(exit_ns, "repeat", pid, tid, proc, shape=shape, correlation_id=corr,
                    entry_low=entry & 0xFFFFFFFF)
        if resolved:
            counted(kind, values, call_ns)
        else:
            truth["unmatched_repeats"] += 1
        if record:
            truth["unmatched_gpu_records"] += not resolved

        def its_record():
            gpu_record(kind, corr, values, resolved)
        if runs:
            # a run spans a second at most
            if kept.get(tid) and exit_ns - kept[tid][0][2] >= 1_000_000_000:
                flush()
            # a moved call's shape is 0 in a run: it names no event
            kept.setdefault(tid, []).append((0 if moved else shape, corr, exit_ns, call_ns,
                                             its_record if record else None, moved))
        elif record:
            its_record()

    copy = dict(direction=1, src=0x7000_0000, dst=BASE, bytes=MIB, host=2, sync=0, stream=7,
                src_device=255, dst_device=0)
    copy_shape, copy_values = whole("memcpy", 300, **copy)
    for corr in (301, 302):
        repeat("memcpy", corr, copy_shape, copy_values)
    # a repeat whose call straddles a multiple of 2^32 ns: its entry's low
    # bits are above its timestamp's
    t = (5 << 32) - 400
    repeat("memcpy", 303, copy_shape, copy_values, call_ns=5000)
    memset_shape, memset_values = whole("memset", 310, device=0, address=BASE, bytes=4096,
                                        value=0, element_size=1, sync=0, stream=7)
    repeat("memset", 311, memset_shape, memset_values)
    launch_shape, launch_values = whole("launch", 320, kernel_id=0xA1, grid_x=64, grid_y=2,
                                        grid_z=1, block_x=256, block_y=1, block_z=1,
                                        shared_mem=1024, config_known=1, stream=7, device=0)
    repeat("launch", 321, launch_shape, launch_values)
    relu_shape, relu_values = whole("launch_unconfigured", 330, kernel_id=0xB2, device=0)
    repeat("launch_unconfigured", 331, relu_shape, relu_values)
    # two copies of other sizes whose shapes share the first copy's set of
    # slots: the first takes its empty way, and both repeat; the second
    # takes the first copy's (whose call entered before the other's), and
    # the first copy's repeat that follows stands for nothing in the trace
    def same_set_copy(size):
        other = dict(copy, bytes=size)
        while not shapes.same_set(shapes.shape("memcpy", dict(other, api_domain=2, api_cbid=41)),
                                  copy_shape):
            other["bytes"] += 1
        return other

    first_other = same_set_copy(copy["bytes"] + 1)
    other = same_set_copy(first_other["bytes"] + 1)
    first_shape, first_values = whole("memcpy", 335, **first_other)
    # the set's two ways hold both: each repeats
    repeat("memcpy", 336, copy_shape, copy_values)
    repeat("memcpy", 337, first_shape, first_values)
    other_shape, other_values = whole("memcpy", 340, **other)
    repeat("memcpy", 341, copy_shape, copy_values, resolved=False)
    # a shape no event of the trace has
    repeat("memcpy", 350, copy_shape ^ (1 << 40), copy_values, resolved=False, record=False)
    # another thread's: its slots are its own
    repeat("memcpy", 360, other_shape, other_values, tid=other_tid, resolved=False,
           record=False)
    # and the one that took the slot repeats
    repeat("memcpy", 342, other_shape, other_values)

    def moved(kind, corr, base_shape, base_values, src, dst, size=None, **how):
        """A repeat_moved of BASE_SHAPE's event at SRC and DST (a memset's
        address is DST), of SIZE bytes (the base's if None)."""
        values = dict(base_values, correlation_id=corr)
        if size is not None:
            values.update(bytes=size)
        if kind == "memcpy":
            values.update(src=src, dst=dst)
        else:
            values.update(address=dst)
        repeat(kind, corr, None, values, moved=(base_shape, src, dst, values["bytes"]), **how)

    # copies on successive slices of a buffer, each a repeat_moved of the
    # whole copy in its slot, which stays there: the repeat after them is
    # that copy's; the last slice is shorter
    for i, corr in enumerate((370, 371, 372)):
        moved("memcpy", corr, other_shape, other_values, 0x7100_0000 + i * 64, BASE + i * 64,
              size=other_values["bytes"] - 100 if i == 2 else None)
    repeat("memcpy", 373, other_shape, other_values)
    # memsets likewise, on their address, of another size
    moved("memset", 380, memset_shape, memset_values, 0, BASE + 4096, size=1024)
    repeat("memset", 381, memset_shape, memset_values)
    # a repeat_moved whose base no slot holds, and one whose base is a
    # launch, which has no addresses (damaged): counted, left out
    moved("memcpy", 390, copy_shape ^ (1 << 41), copy_values, 0x7200_0000, BASE,
          resolved=False, record=False)
    moved("memcpy", 391, launch_shape, copy_values, 0x7300_0000, BASE, resolved=False,
          record=False)
    # what a tracer of one way a set wrote (1024 slots, before there were
    # two ways): calls of five copies, three of one slot and two whose low
    # bits meet theirs but for the tenth, in a shuffled order, each a
    # repeat when that tracer's slot held its shape (shapes.OneWaySlots),
    # else written whole; every repeat stands for its event
    upload = dict(copy, src=0x7000_0000 + 64 * MIB)
    held_values = {}
    up_shape = shapes.shape("memcpy", dict(upload, api_domain=2, api_cbid=41))

    def copy_where(size, meet):
        """A copy of SIZE bytes or more whose shape's low 9 bits are the
        upload's, its tenth bit the upload's when MEET."""
        other = dict(upload, bytes=size)
        while True:
            value = shapes.shape("memcpy", dict(other, api_domain=2, api_cbid=41))
            if ((value ^ up_shape) & 511 == 0
                    and bool((value ^ up_shape) & 512) != meet):
                return other
            other["bytes"] += 1

    one_way = [upload]
    for meet in (True, True, False, False):
        one_way.append(copy_where(one_way[-1]["bytes"] + 1, meet))
    old = shapes.OneWaySlots()
    order = random.Random(1024)
    for corr in range(400, 460):
        fields = order.choice(one_way)
        value = shapes.shape("memcpy", dict(fields, api_domain=2, api_cbid=41))
        if old.repeats(value):
            repeat("memcpy", corr, value, held_values[value])
        else:
            _, held_values[value] = whole("memcpy", corr, **fields)
    flush()
    write(directory, events, s)
    return truth


def runs(directory):
    """The repeats of "repeats", each thread's in repeat_run events."""
    return repeats(directory, runs=True)

def forms(directory):
    """The trace of decode-expected.sh, whose events are written out here
    field by field so that the expected file (expected/decode-forms.txt)
    can be derived from this function and doc/events.md alone. Process
    6161: the calls' thread 6161, CUPTI's buffer thread 6162, another
    thread 6163 whose run the main thread writes. The times are past
    2^32 ns, so that a repeat's entry_low is not its entry."""
    events = list(EVENTS.items())
    s = Stream(events)
    pid, main, gpu, other, proc = 6161, 6161, 6162, 6163, "decode"
    copy = dict(direction=1, src=0x7000_0000, dst=BASE, bytes=4096, host=2, sync=0, stream=7,
                src_device=255, dst_device=0, api_domain=2, api_cbid=41)
    gemm = dict(kernel_id=0xA1, grid_x=64, grid_y=2, grid_z=1, block_x=256, block_y=1,
                block_z=1, shared_mem=1024, config_known=1, stream=7, device=0, api_domain=2,
                api_cbid=211)
    back = dict(direction=2, src=BASE, dst=0x7000_1000, bytes=8192, host=1, sync=1, stream=0,
                src_device=0, dst_device=255, api_domain=2, api_cbid=31)
    copy_shape = shapes.shape("memcpy", copy)
    gemm_shape = shapes.shape("launch", gemm)
    back_shape = shapes.shape("memcpy", back)
    # the main thread's two shapes in sets of their own
    assert not shapes.same_set(copy_shape, gemm_shape)

    s.event(5_000_001_000, "api_name", pid, main, proc, domain=2, cbid=41,
            name="cudaMemcpyAsync")
    s.event(5_000_002_000, "kernel_name", pid, main, proc, kernel_id=0xA1, name="gemm")
    s.event(5_000_003_000, "nvtx_push", pid, main, proc, domain=0, message="step")
    s.event(5_000_004_000, "mem_alloc", pid, main, proc, device=0, kind=1, address=BASE,
            size=MIB, delta=MIB, stream=0xFFFFFFFF, api_domain=2, api_cbid=20,
            correlation_id=1, entry=5_000_003_500)
    s.event(5_000_005_000, "memcpy", pid, main, proc, correlation_id=10, entry=5_000_004_600,
            **copy)
    s.event(5_000_006_000, "repeat", pid, main, proc, shape=copy_shape, correlation_id=11,
            entry_low=5_000_005_400 & 0xFFFFFFFF)
    s.event(5_000_007_000, "launch", pid, main, proc, correlation_id=20, entry=5_000_006_500,
            **gemm)
    # the calls: returned at base + exit, entered duration before
    s.event(5_000_010_000, "repeat_run", pid, main, proc, base=5_000_008_000, tid=0,
            shape=[copy_shape, gemm_shape, copy_shape], correlation_id=[12, 21, 13],
            exit=[0, 500, 1000], duration=[300, 200, 400])
    s.event(5_000_011_000, "launch_unconfigured", pid, main, proc, kernel_id=0xA1, device=0,
            api_domain=2, api_cbid=505, correlation_id=40, entry=5_000_010_500)
    s.event(5_000_012_000, "memcpy", pid, other, proc, correlation_id=30, entry=5_000_011_200,
            **back)
    # a copy of the main thread's shape on thread 6163, whose slots never
    # held it: it stands for nothing in the trace
    s.event(5_000_013_000, "repeat", pid, other, proc, shape=copy_shape, correlation_id=32,
            entry_low=5_000_012_500 & 0xFFFFFFFF)
    s.event(5_000_019_000, "kernel_shape", pid, gpu, proc, shape_id=5, stream=9, grid_x=8,
            grid_y=1, grid_z=1, block_x=128, block_y=1, block_z=1, static_shared_mem=64,
            dynamic_shared_mem=32, registers=16)
    # copies 10 and 11, kernel 20, shaped kernel 40
    s.event(5_000_020_000, "gpu_batch", pid, gpu, proc, base=5_000_005_100, context=1, device=0,
            record=[0, 0, 1, 2], correlation_id=[10, 11, 20, 40], start=[0, 1000, 2000, 6000],
            duration=[800, 800, 5000, 1500], direction=[1, 1], src_kind=[2, 2],
            dst_kind=[3, 3], static_shared_mem=[512], registers=[40], shape_id=[5])
    s.event(5_000_021_000, "gpu_memcpy_times", pid, gpu, proc, start=5_000_008_100,
            end=5_000_008_900, correlation_id=12, context=1, direction=1, src_kind=2,
            dst_kind=3, device=0)
    s.event(5_000_022_000, "gpu_kernel_times", pid, gpu, proc, start=5_000_012_100,
            end=5_000_017_100, correlation_id=21, context=1, static_shared_mem=256,
            registers=32)
    s.event(5_000_023_000, "gpu_memcpy", pid, gpu, proc, start=5_000_012_500,
            end=5_000_014_500, correlation_id=30, runtime_correlation_id=0, direction=2,
            src_kind=3, dst_kind=1, bytes=8192, device=0, src_device=255, dst_device=255,
            context=1, stream=0)
    # thread 6163's run, written by the main thread (at the process's exit)
    s.event(5_000_030_000, "repeat_run", pid, main, proc, base=5_000_025_000, tid=other,
            shape=[back_shape], correlation_id=[31], exit=[0], duration=[1000])
    # a copy, then its repeat whose call enters before 2^33 ns and returns
    # after: its entry's low bits are above its timestamp's
    s.event(8_589_933_000, "memcpy", pid, main, proc, correlation_id=50, entry=8_589_932_500,
            **copy)
    s.event(8_589_935_000, "repeat", pid, main, proc, shape=copy_shape, correlation_id=51,
            entry_low=8_589_934_000 & 0xFFFFFFFF)
    s.event(8_589_936_000, "nvtx_pop", pid, main, proc, domain=0)
    write(directory, events, s)


# Values at the ends of each type's range, and a few plain ones.
EXTREMES = {
    U8: [0, 1, 254, 255], U16: [0, 1, 0xFFFF], U32: [0, 1, 0x7FFFFFFF, 0xFFFFFFFF],
    U64: [0, 1, 4096, 2**31, 2**32 - 1, 2**62, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1],
    I32: [-2**31, -1, 0, 2, 2**31 - 1], I64: [-2**63, -2**62, -1, 0, 1, 2**62, 2**63 - 1],
}


def extremes(directory, seed):
    """Events of every type written, each field at the ends of its range."""
    rng = random.Random(seed)
    events = list(EVENTS.items())
    s = Stream(events)
    t = 1_000_000_000
    pids = [(1, 1), (1, 2), (2, 2), (2**31 - 1, -2**31)]
    addresses = [BASE, BASE + MIB, 0, 2**64 - 1, 2**63]
    for i in range(600):
        name, fields = events[rng.randrange(len(events))]
        values = {}
        for field, kind in fields:
            if kind in (STR, TEXT):
                values[field] = rng.choice(["", "x", "cudaMalloc", "a/b"])
            elif kind == BYTES16:
                values[field] = bytes(rng.randrange(256) for _ in range(16))
            elif field in ("address", "src", "dst"):
                values[field] = rng.choice(addresses)
            elif kind in SEQ_ELEMENT:
                # columns of lengths of their own: a reader reads the shortest
                element = SEQ_ELEMENT[kind][3]
                values[field] = [rng.choice(EXTREMES[element]) for _ in range(rng.randrange(4))]
            else:
                values[field] = rng.choice(EXTREMES[kind])
        pid, tid = rng.choice(pids)
        # the trace clock goes forward, by steps of all sizes
        t += rng.choice([0, 1, 1000, 10**9, 2**40])
        s.event(t, name, pid, tid, "extreme", **values)
    write(directory, events, s)


# lttng-ust 2.13's lttng_ust_statedump:bin_info (lttng-ust-statedump-provider.h).
BIN_INFO = ("lttng_ust_statedump:bin_info",
            [("baddr", U64), ("memsz", U64), ("path", STR), ("is_pic", U8),
             ("has_build_id", U8), ("has_debug_link", U8)])


def stacks(directory):
    """A leak whose stack's frames lie in objects with hostile paths, and
    one whose Python frames go from a good one to lines that are not
    frames (no tabs, a line number past 32 bits), bytes that are not
    UTF-8 and a name of 2000 characters."""
    os.makedirs(directory, exist_ok=True)
    fifo = os.path.join(os.path.abspath(directory), "fifo")
    os.mkfifo(fifo)
    paths = [fifo, "/dev/zero", "/", "/nonexistent/libgone.so", "relative.so"]
    events = [(n, EVENTS[n]) for n in ("tracer_info", "api_name", "mem_alloc")]
    events += [("call_stack", [(f, ctf_type(k)) for f, k, _, _ in
                               ct_contract.LAYOUTS["call_stack"]]), BIN_INFO]
    s = Stream(events)
    pid = 4242
    t = 1_000_000_000
    bases = [BASE + i * GIB_BYTES for i in range(len(paths))]
    for base, path in zip(bases, paths):
        s.event(t, BIN_INFO[0], pid, pid, "hostile", baddr=base, memsz=MIB, path=path,
                is_pic=1)
    s.event(t, "tracer_info", pid, pid, "hostile", version="0.1")
    s.event(t, "api_name", pid, pid, "hostile", domain=2, cbid=20, name="cudaMalloc")
    s.event(t + 1, "call_stack", pid, pid, "hostile", stack_id=7,
            frames=[b + 0x1234 for b in bases] + [0, 2**64 - 1])
    s.event(t + 2, "mem_alloc", pid, pid, "hostile", device=0, kind=1, address=BASE,
            size=MIB, delta=MIB, stream=0xFFFFFFFF, api_domain=2, api_cbid=20,
            correlation_id=1, stack_id=7)
    python = (b"12\tstep\t/srv/train.py\n" + b"7\t" + b"f" * 2000 + b"\t\xff\xfe.py\n" +
              b"no tabs\n" + b"99999999999\tnever\tshown.py\n")
    s.event(t + 3, "call_stack", pid, pid, "hostile", stack_id=8, frames=[0], python=python)
    s.event(t + 4, "mem_alloc", pid, pid, "hostile", device=0, kind=1, address=BASE + MIB,
            size=MIB, delta=MIB, stream=0xFFFFFFFF, api_domain=2, api_cbid=20,
            correlation_id=2, stack_id=8)
    write(directory, events, s)
    return {"pid": pid, "site": "fifo+0x1234"}


def sites(directory):
    """Leaks from Python through an extension module: cudaMalloc's frame in
    the runtime, then the extension's (cuda-bindings' cyruntime), then the
    interpreter's, with the Python frames: cuda-bindings' own Python
    wrapper, then the program's lines. Two stacks alike but for the
    program's line. Then a notebook cell, In [3], whose code IPython
    compiled under a file of its own, leaks from its line 2 and from line
    5, in a function it defines. Last, two allocations through the
    program's own one-line wrapper, gpu.py's malloc, from two lines of its
    main: one freed, one leaked. The truth is each leak's site as the
    program's source gives it: the program's Python line (the cell's as
    Jupyter shows it), never the extension's object or the bindings'
    wrapper."""
    os.makedirs(directory, exist_ok=True)
    paths = ["/usr/local/cuda/lib64/libcudart.so.13",
             "/venv/lib/python3.11/site-packages/cuda/bindings/"
             "cyruntime.cpython-311-x86_64-linux-gnu.so",
             "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"]
    events = [(n, EVENTS[n]) for n in ("tracer_info", "api_name", "mem_alloc", "mem_free")]
    events += [(n, [(f, ctf_type(k)) for f, k, _, _ in ct_contract.LAYOUTS[n]])
               for n in ("call_stack", "cell_begin")] + [BIN_INFO]
    s = Stream(events)
    pid = 4343
    t = 1_000_000_000
    bases = [BASE + i * GIB_BYTES for i in range(len(paths))]
    for base, path in zip(bases, paths):
        s.event(t, BIN_INFO[0], pid, pid, "python3", baddr=base, memsz=MIB, path=path,
                is_pic=1)
    s.event(t, "tracer_info", pid, pid, "python3", version="0.1")
    s.event(t, "api_name", pid, pid, "python3", domain=2, cbid=20, name="cudaMalloc")
    wrapper = b"380\tcudaMalloc\t/venv/lib/python3.11/site-packages/cuda/bindings/runtime.py\n"
    truth = {"pid": pid, "sites": []}
    for i, (line, function) in enumerate([(12, "load_weights"), (27, "step")]):
        python = (wrapper + b"%d\t%s\t/srv/train.py\n" % (line, function.encode()) +
                  b"40\t<module>\t/srv/train.py\n")
        s.event(t + 10 * i + 1, "call_stack", pid, pid, "python3", stack_id=10 + i,
                frames=[b + 0x40 * (i + 1) for b in bases], python=python)
        s.event(t + 10 * i + 2, "mem_alloc", pid, pid, "python3", device=0, kind=1,
                address=BASE + i * MIB, size=MIB * (i + 1), delta=MIB * (i + 1),
                stream=0xFFFFFFFF, api_domain=2, api_cbid=20, correlation_id=1 + i,
                stack_id=10 + i)
        truth["sites"].append({"site": "train.py:%d in %s" % (line, function),
                               "bytes": MIB * (i + 1)})
    cell = "/tmp/ipykernel_%d/2776067111.py" % pid
    t += 100
    s.event(t, "cell_begin", pid, pid, "python3", execution_count=3, line=1,
            first_line="def f():", code_file=cell)
    for i, (python, site) in enumerate([
            (b"2\t<module>\t%s\n" % cell.encode(), "In [3] line 2"),
            (b"5\tf\t%s\n7\t<module>\t%s\n" % (cell.encode(), cell.encode()),
             "In [3] line 5 in f")]):
        size = 4 * MIB * (i + 1)
        s.event(t + 10 * i + 1, "call_stack", pid, pid, "python3", stack_id=20 + i,
                frames=[b + 0x80 * (i + 1) for b in bases], python=wrapper + python)
        s.event(t + 10 * i + 2, "mem_alloc", pid, pid, "python3", device=0, kind=1,
                address=BASE + (8 + 8 * i) * MIB, size=size, delta=size,
                stream=0xFFFFFFFF, api_domain=2, api_cbid=20, correlation_id=10 + i,
                stack_id=20 + i)
        truth["sites"].append({"site": site, "bytes": size})
    t += 100
    for i, line in enumerate((50, 60)):
        python = (wrapper + b"65\tmalloc\t/srv/gpu.py\n" +
                  b"%d\tmain\t/srv/train.py\n" % line)
        s.event(t + 10 * i + 1, "call_stack", pid, pid, "python3", stack_id=30 + i,
                frames=[b + 0x100 * (i + 1) for b in bases], python=python)
        s.event(t + 10 * i + 2, "mem_alloc", pid, pid, "python3", device=0, kind=1,
                address=BASE + (32 + 8 * i) * MIB, size=16 * MIB, delta=16 * MIB,
                stream=0xFFFFFFFF, api_domain=2, api_cbid=20, correlation_id=20 + i,
                stack_id=30 + i)
    s.event(t + 30, "mem_free", pid, pid, "python3", device=0, kind=1,
            address=BASE + 32 * MIB, size=16 * MIB, delta=-16 * MIB, stream=0xFFFFFFFF,
            api_domain=2, api_cbid=22, correlation_id=22, stack_id=0)
    truth["sites"].append({"site": "train.py:60 in main", "bytes": 16 * MIB})
    autograd_sites(s, pid, t + 100, bases[0], truth)
    write(directory, events, s)
    return truth


def autograd_sites(s, pid, t, runtime, truth):
    """PyTorch's autograd thread (tid PID + 1, no Python frames, its
    frames in libtorch_cpu) allocates while the main thread waits in
    loss.backward() at train.py:33: charged to that line. Then the main
    thread's next stack is at line 34, out of backward, and the same
    thread's allocation is its own native frames', as it is while two
    threads (the main one and PID + 2) are in backward at once: never
    charged to a Python line."""
    torch = BASE + 8 * GIB_BYTES
    backward = (b"233\t_make_grads\t/venv/lib/python3.11/site-packages/torch/autograd/"
                b"__init__.py\n388\tbackward\t/venv/lib/python3.11/site-packages/torch/"
                b"autograd/__init__.py\n")
    s.event(t, BIN_INFO[0], pid, pid, "python3", baddr=torch, memsz=MIB,
            path="/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so", is_pic=1)
    stacks = {40: (pid, backward + b"33\tstep\t/srv/train.py\n40\t<module>\t/srv/train.py\n"),
              41: (pid + 1, b""),
              42: (pid, b"34\tstep\t/srv/train.py\n40\t<module>\t/srv/train.py\n"),
              43: (pid + 2, backward + b"70\tworker\t/srv/train.py\n")}
    for i, (stack, (tid, python)) in enumerate(sorted(stacks.items())):
        s.event(t + i, "call_stack", pid, tid, "python3", stack_id=stack,
                frames=[runtime + 0x300 + i, torch + 0x10 * (i + 1)], python=python)
    address = BASE + 64 * MIB
    t += 10
    # (stack, size in MiB, freed): in the order made
    for stack, size, freed in ((40, 1, False), (41, 2, False), (42, 1, False), (41, 4, False),
                               (40, 1, True), (43, 1, True), (41, 8, False)):
        tid = stacks[stack][0]
        t += 10
        s.event(t, "mem_alloc", pid, tid, "python3", device=0, kind=1, address=address,
                size=size * MIB, delta=size * MIB, stream=0xFFFFFFFF, api_domain=2,
                api_cbid=20, correlation_id=100 + stack * 10 + size, stack_id=stack)
        if freed:
            s.event(t + 1, "mem_free", pid, tid, "python3", device=0, kind=1,
                    address=address, size=size * MIB, delta=-size * MIB,
                    stream=0xFFFFFFFF, api_domain=2, api_cbid=22, correlation_id=0,
                    stack_id=0)
        address += 16 * MIB
    truth["sites"] += [{"site": "train.py:33 in step", "bytes": 3 * MIB},
                       {"site": "train.py:34 in step", "bytes": MIB},
                       # named by the call: the library's file is not on this machine
                       {"site": "cudaMalloc", "bytes": 12 * MIB, "native": True}]


def codes(directory):
    """Two processes on a compute capability 8.0 device load a library
    whose .nv_fatbin holds an sm_75 cubin only (as libcufft's does, its
    real code being elsewhere). The first never launches a kernel of it;
    the second's launch fails with cudaErrorNoKernelImageForDevice (209).
    The truth: an architecture verdict for the second only."""
    os.makedirs(directory, exist_ok=True)
    names = ("tracer_info", "api_name", "device_info", "driver_info", "library_load",
             "api_call")
    events = [(n, EVENTS[n]) if n in EVENTS else
              (n, [(f, ctf_type(k)) for f, k, _, _ in ct_contract.LAYOUTS[
                  ct_contract.EVENTS[n][0]]]) for n in names]
    s = Stream(events)
    t = 1_000_000_000
    library = "/venv/lib/python3.11/site-packages/nvidia/cufft/lib/libcufft.so.12"
    truth = {"unused": 5001, "failed": 5002, "library": library}
    for pid in (5001, 5002):
        s.event(t, "tracer_info", pid, pid, "python3", version="0.1")
        s.event(t, "driver_info", pid, pid, "python3", cuda_version=13000,
                driver_version="580.65.06")
        s.event(t, "device_info", pid, pid, "python3", device=0, name="NVIDIA A100",
                global_memory=40 << 30, cc_major=8, cc_minor=0, multiprocessors=108,
                uuid=[0] * 16)
        s.event(t + 1, "library_load", pid, pid, "python3", path=library,
                soname="libcufft.so.12", version="12.0", device_code="sm_75", at_start=0,
                base=BASE, size=MIB)
        t += 10
    s.event(t, "api_name", 5002, 5002, "python3", domain=2, cbid=211, name="cudaLaunchKernel")
    s.event(t + 1, "api_call", 5002, 5002, "python3", domain=2, cbid=211, correlation_id=7,
            result=209, entry=t)
    write(directory, events, s)
    return truth


def flows(directory):
    """Copies, memsets and launches whose GPU work starts before their call
    returns (synchronous calls, a kernel that starts at once, one that starts
    at its call's very entry), and copies whose work starts after, on two
    threads: the flows of the Perfetto export (check-perfetto.py --flows)."""
    events = list(EVENTS.items())
    s = Stream(events)
    pid, proc = 5151, "flows"
    t = 1_000_000_000
    early = operations = 0
    gpu = []  # the GPU records, written after their calls' events, as CUPTI's buffer is read
    for tid in (pid, pid + 1):
        s.event(t, "tracer_info", pid, tid, proc, version="0.1.0", cupti_version=130001,
                driver_version=13000, api=1)
    s.event(t + 1, "kernel_name", pid, pid, proc, kernel_id=0xC3, name="saxpy")
    for name, cbid in (("cudaMemcpy", 31), ("cudaMemset", 45), ("cudaLaunchKernel", 211),
                       ("cudaMemcpyAsync", 41)):
        s.event(t + 2, "api_name", pid, pid, proc, domain=2, cbid=cbid, name=name)
    corr = 500
    for round_ in range(3):
        for tid in (pid, pid + 1):
            # (kind, GPU start and end after the call's entry, the call's length)
            for kind, start, end, length in (("memcpy", 200, 800, 1000), ("memset", 100, 300, 600),
                                             ("launch", 50, 5050, 400), ("memcpy", 0, 700, 900),
                                             ("async", 1500, 2500, 600)):
                t += 10_000
                corr += 1
                entry, exit_ = t, t + length
                api = dict(api_domain=2, correlation_id=corr, entry=entry)
                if kind in ("memcpy", "async"):
                    sync = kind == "memcpy"
                    s.event(exit_, "memcpy", pid, tid, proc, direction=1, src=0x7000_0000,
                            dst=BASE, bytes=4096, host=2, sync=int(sync), stream=tid - pid + 7,
                            src_device=255, dst_device=0, api_cbid=31 if sync else 41, **api)
                    gpu.append(("gpu_memcpy", dict(
                        start=entry + start, end=entry + end, correlation_id=corr,
                        direction=1, src_kind=2, dst_kind=3, bytes=4096, device=0,
                        src_device=255, dst_device=255, context=1, stream=tid - pid + 7)))
                elif kind == "memset":
                    s.event(exit_, "memset", pid, tid, proc, device=0, address=BASE, bytes=4096,
                            element_size=1, sync=1, stream=tid - pid + 7, api_cbid=45, **api)
                    gpu.append(("gpu_memset", dict(
                        start=entry + start, end=entry + end, correlation_id=corr, bytes=4096,
                        device=0, context=1, stream=tid - pid + 7)))
                else:
                    s.event(exit_, "launch", pid, tid, proc, kernel_id=0xC3, grid_x=4, grid_y=1,
                            grid_z=1, block_x=128, block_y=1, block_z=1, config_known=1,
                            stream=tid - pid + 7, device=0, api_cbid=211, **api)
                    gpu.append(("gpu_kernel", dict(
                        start=entry + start, end=entry + end, correlation_id=corr,
                        kernel_id=0xC3, device=0, context=1, stream=tid - pid + 7, grid_x=4,
                        grid_y=1, grid_z=1, block_x=128, block_y=1, block_z=1)))
                operations += 1
                early += start < length
        t += 10_000
        for name, values in gpu:
            t += 10
            s.event(t, name, pid, pid, proc, **values)
        gpu.clear()
    write(directory, events, s)
    return {"pid": pid, "operations": operations, "early": early}


def empty(directory):
    write(directory, list(EVENTS.items()), None)


def main():
    if len(sys.argv) == 4 and sys.argv[1] in ("bench", "bench-future", "bench-gpu"):
        version = "9.0.0" if sys.argv[1] == "bench-future" else None
        json.dump(bench(sys.argv[3], int(sys.argv[2]), version, sys.argv[1] == "bench-gpu"),
                  sys.stdout)
        print()
        return
    if len(sys.argv) == 4 and sys.argv[1] == "extremes":
        extremes(sys.argv[3], int(sys.argv[2]))
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    scenario, directory = sys.argv[1], sys.argv[2]
    makers = {"basic": basic, "accounting": accounting, "lttng": lttng, "foreign": foreign,
              "future": future,
              "old-layout": old_layout, "empty": empty, "strings": strings, "stacks": stacks,
              "sites": sites, "codes": codes,
              "compact": compact, "repeats": repeats, "runs": runs, "flows": flows,
              "forms": forms, "processes": processes}
    if scenario not in makers:
        sys.exit(f"make-ctf.py: unknown scenario {scenario}")
    truth = makers[scenario](directory)
    if truth is not None:
        json.dump(truth, sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    main()
