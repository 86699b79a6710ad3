#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-perfetto.py - a `cudatrace export --format perfetto` file, decoded
with Perfetto's own protos (the PyPI package `perfetto`), against the
simulator's ledger, the traced program's printout and the report.

    check-perfetto.py TRACE.pftrace LEDGER PROGRAM.out REPORT.json
    check-perfetto.py --drops TRACE.pftrace LEDGER
    check-perfetto.py --decodes TRACE.pftrace
    check-perfetto.py --flows TRACE.pftrace TRUTH.json
    check-perfetto.py --counters TRACE.pftrace EXPECTED.json

Checks, as TAP: the clock of the timestamps, CLOCK_MONOTONIC's, said
before the first (a clock snapshot whose primary clock it is, and the
sequence's default clock of timestamps; no packet names another); the
track structure (the process and its threads; a GPU
track whose children are the streams, named "stream"); every kernel, copy
and memset of the ledger as one slice on its stream's track at its GPU
times, named by kernel name or by direction and size, and nothing more;
every launch's flow from an instant at its API call's entry on the
launching thread to its kernel; an arrow trace_processor draws for every
operation (arrows); the NVTX ranges the program pushed, as slices on its
thread; the failed allocation as an instant with the report's verdict;
the live-memory counter's maximum equal to the ledger's peak and to the
report's, and its last value the ledger's live bytes at the end.

With --drops (a run whose activity records the simulator dropped): the
instants that say so count as many records as the ledger's cupti_drop
lines, and the stream tracks hold no more slices than the ledger has work.

With --decodes (a trace of hostile names or extreme values): the export
decodes, its names included (protobuf strings are UTF-8), and has events.

With --counters (EXPECTED: {"counters": {TRACK NAME: [VALUES]}, "instants":
[NAME PREFIXES]}): each counter track of that name shows those values in
that order (a value repeated in a row counts once), and an instant starts
with each prefix.

With --flows (make-ctf.py's flows trace and the truth it printed): an arrow
trace_processor draws for each of its operations, most of whose GPU work
starts before their call returns (arrows).
"""
import importlib.util
import json
import os
import sys
from collections import Counter, defaultdict

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

TE = pb.TrackEvent

# The ledger as check-memory-report.py reads it (allocations and failures).
_spec = importlib.util.spec_from_file_location(
    "check_memory_report", os.path.join(os.path.dirname(__file__), "check-memory-report.py"))
memory_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(memory_report)

# Its TAP lines and their count, too.
ok = memory_report.ok


def ledger_work(path, pid):
    """The ledger's GPU work of PID: (kind, name, stream, start, end, corr) each."""
    work = []
    with open(path) as f:
        for line in f:
            kv = dict(item.split("=", 1) for item in line.split() if "=" in item)
            if int(kv.get("pid", -1)) != pid or "gpu_start" not in kv:
                continue
            op = kv["op"]
            if op == "launch":
                name = kv["name"]
            elif op == "memcpy":
                name = f"memcpy {kv['dir']} {kv['bytes']} bytes"
            elif op == "memset":
                name = f"memset {kv['bytes']} bytes"
            else:
                continue
            work.append((op, name, int(kv["stream"]), int(kv["gpu_start"]), int(kv["gpu_end"]),
                         int(kv["corr"])))
    return work


class Export:
    """The decoded file: tracks, slices, instants and counter values by track."""

    def __init__(self, path):
        trace = pb.Trace()
        with open(path, "rb") as f:
            trace.ParseFromString(f.read())
        self.tracks = {}
        self.slices = defaultdict(list)  # uuid -> [(name, start, end, flows, terminating)]
        self.instants = defaultdict(list)  # uuid -> [(name, ts, flows)]
        self.counters = defaultdict(list)  # uuid -> [(ts, value)]
        self.events = []  # every track event in the file's order: (ts, flows, terminating)
        self.unmatched_ends = 0
        # extra counter values (TrackEvent fields 31 and 12) whose track is
        # missing, and those of 0, which some trace processors take for the
        # end of the list
        self.bad_extras = 0
        self.zero_extras = 0
        self.extra_packets = 0
        self.cleared_first = bool(trace.packet) and bool(
            trace.packet[0].sequence_flags & pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED)
        # the clock: where the first snapshot is, its primary clock and the
        # sequence's default one; where the first timestamp is; the clocks
        # packets name of their own
        self.clock_at = self.first_time = None
        self.primary_clock = self.default_clock = None
        self.packet_clocks = set()
        for i, packet in enumerate(trace.packet):
            if packet.HasField("timestamp_clock_id"):
                self.packet_clocks.add(packet.timestamp_clock_id)
            if packet.HasField("timestamp") and self.first_time is None:
                self.first_time = i
            if packet.HasField("clock_snapshot") and self.clock_at is None:
                self.clock_at = i
                self.primary_clock = packet.clock_snapshot.primary_trace_clock
                self.default_clock = packet.trace_packet_defaults.timestamp_clock_id
        names = {}
        self.strings = []  # every name: decoded to bytes, not str, when it is not UTF-8
        open_slices = defaultdict(list)
        for packet in trace.packet:
            if packet.HasField("interned_data"):
                for e in packet.interned_data.event_names:
                    names[e.iid] = e.name
                    self.strings.append(e.name)
            if packet.HasField("track_descriptor"):
                self.tracks[packet.track_descriptor.uuid] = packet.track_descriptor
                self.strings.append(packet.track_descriptor.name)
            if not packet.HasField("track_event"):
                continue
            ev = packet.track_event
            name = names.get(ev.name_iid) if ev.HasField("name_iid") else ev.name
            self.strings.append(ev.name)
            ts = packet.timestamp
            self.events.append((ts, list(ev.flow_ids), list(ev.terminating_flow_ids)))
            if ev.type == TE.TYPE_SLICE_BEGIN:
                open_slices[ev.track_uuid].append(
                    [name, ts, None, list(ev.flow_ids), list(ev.terminating_flow_ids)])
            elif ev.type == TE.TYPE_SLICE_END:
                if not open_slices[ev.track_uuid]:
                    self.unmatched_ends += 1
                    continue
                s = open_slices[ev.track_uuid].pop()
                s[2] = ts
                self.slices[ev.track_uuid].append(tuple(s))
            elif ev.type == TE.TYPE_INSTANT:
                self.instants[ev.track_uuid].append((name, ts, list(ev.flow_ids)))
            elif ev.type == TE.TYPE_COUNTER:
                self.counters[ev.track_uuid].append((ts, ev.counter_value))
            # any event may set more counters at its time
            if len(ev.extra_counter_track_uuids) != len(ev.extra_counter_values):
                self.bad_extras += 1
            self.extra_packets += len(ev.extra_counter_values) > 0
            for uuid, value in zip(ev.extra_counter_track_uuids, ev.extra_counter_values):
                self.counters[uuid].append((ts, value))
                self.zero_extras += value == 0
        self.unclosed = sum(len(v) for v in open_slices.values())

    def children(self, parent):
        return [t for t in self.tracks.values() if t.parent_uuid == parent]


def arrows(x, operations):
    """The arrows trace_processor draws, replayed as it imports the file: its
    sorter orders the events by timestamp, ties in the file's order (a stable
    sort); an id in flow_ids begins a flow, one in terminating_flow_ids ends
    it when the flow began earlier and is otherwise dropped, no arrow drawn
    (TrackEventParser's MaybeParseTrackEventFlows, FlowTracker::End). Checks
    that OPERATIONS operations have GPU work starting before their call
    returns, and that each of the OPERATIONS has its arrow."""
    active, drawn, dropped = set(), 0, []
    for ts, flows, terminating in sorted(x.events, key=lambda e: e[0]):
        active.update(flows)
        for f in terminating:
            if f in active:
                active.discard(f)
                drawn += 1
            else:
                dropped.append((f, ts))
    # the work starting before its call returns: its GPU slice begins before
    # the end of the innermost slice around the instant of its flow, its call
    host = {f: (u, ts) for u in x.instants for _, ts, flows in x.instants[u] for f in flows}
    early = 0
    for u in list(x.slices):
        for _, start, _, _, terminating in x.slices[u]:
            for f in terminating:
                track, ts = host.get(f, (None, None))
                calls = [s for s in x.slices.get(track, []) if s[1] <= ts <= s[2]]
                early += bool(calls) and start < max(calls, key=lambda s: s[1])[2]
    ok(early > 0, f"GPU work of {early} of the {operations} operations starts before its call "
       "returns")
    ok(drawn == operations and not dropped, f"trace_processor, reading the events in time order, "
       f"draws the {operations} operations' arrows", f"{drawn} drawn, {len(dropped)} ends "
       "read before their beginning", *dropped[:5])


def check_flows(args):
    export_path, truth_path = args
    with open(truth_path) as f:
        truth = json.load(f)
    x = Export(export_path)
    arrows(x, truth["operations"])
    terminated = [f for u in x.slices for s in x.slices[u] for f in s[4]]
    ok(len(terminated) == truth["operations"] and truth["early"] > 0,
       f"one flow ends on each GPU slice, {truth['early']} of them starting before their call "
       "returns", f"{len(terminated)} flows end")


def check(args):
    export_path, ledger_path, program_out, report_path = args
    with open(program_out) as f:
        out = f.read().splitlines()
    pid = int(next(l.split("=")[1] for l in out if l.startswith("# fact pid=")))
    nvtx_want = Counter({l.split()[2]: int(l.split()[3]) for l in out if l.startswith("# nvtx ")})
    with open(report_path) as f:
        report = json.load(f)
    x = Export(export_path)
    ok(x.cleared_first, "the first packet clears the incremental state (interned names)")
    monotonic = pb.BuiltinClock.Value("BUILTIN_CLOCK_MONOTONIC")
    ok(x.clock_at is not None and x.first_time is not None and x.clock_at < x.first_time and
       x.primary_clock == monotonic and x.default_clock == monotonic and not x.packet_clocks,
       "before the first timestamp, the file says its timestamps are CLOCK_MONOTONIC's: the "
       "trace's clock, and the sequence's default one",
       f"snapshot at packet {x.clock_at}, first timestamp at {x.first_time}, primary clock "
       f"{x.primary_clock}, default {x.default_clock}, named by packets {x.packet_clocks}")
    ok(x.unmatched_ends == 0 and x.unclosed == 0, "every slice that begins ends",
       f"{x.unmatched_ends} ends without a begin, {x.unclosed} begins without an end")
    ok(x.bad_extras == 0 and x.zero_extras == 0 and x.extra_packets > 0,
       "an allocation's counters are set in one packet, as extra counter values (none of 0)",
       f"{x.extra_packets} packets with extra values, {x.bad_extras} with more tracks than "
       f"values or fewer, {x.zero_extras} values of 0")
    ok(all(u in x.tracks for u in x.counters), "every counter value is on a track described",
       [u for u in x.counters if u not in x.tracks])

    # ---- tracks
    procs = [t for t in x.tracks.values() if t.HasField("process")]
    ok(len(procs) == 1 and procs[0].process.pid == pid,
       "one process track, of the traced program's pid", [(t.process.pid) for t in procs])
    if not procs:
        return
    proc = procs[0].uuid
    threads = {t.uuid: t for t in x.tracks.values() if t.HasField("thread")}
    ok(threads and all(t.thread.pid == pid and t.parent_uuid == proc for t in threads.values()),
       "thread tracks of the process", [str(t) for t in threads.values()])
    gpus = [t for t in x.tracks.values() if t.name.startswith("GPU 0") and not t.parent_uuid]
    ok(len(gpus) == 1, "one track for device 0", [t.name for t in gpus])
    if not gpus:
        return
    streams = {t.uuid: t for t in x.children(gpus[0].uuid)}
    ok(streams and all("stream" in t.name for t in streams.values()),
       "the device track's children are streams", [t.name for t in streams.values()])

    # ---- GPU work: every ledger operation on its stream's track, at its GPU times
    work = ledger_work(ledger_path, pid)
    kernel_streams = {w[2] for w in work if w[0] == "launch"}
    ok(len(kernel_streams) >= 2, "the ledger has kernels on two streams", kernel_streams)
    for op in ("launch", "memcpy", "memset"):
        ok(any(w[0] == op for w in work), f"the ledger has {op} work")
    ok({w[1].split()[1] for w in work if w[0] == "memcpy"} >= {"HtoD", "DtoH", "DtoD"},
       "the ledger has copies of each direction")
    by_name = {t.name: u for u, t in streams.items()}
    gpu_slices = {(u, s[0], s[1], s[2]) for u in streams for s in x.slices[u]}
    missing = []
    for op, name, stream, start, end, corr in work:
        track = by_name.get(f"stream {stream} (pid {pid})")
        if (track, name, start, end) not in gpu_slices:
            missing.append((op, name, stream, start, end))
    ok(not missing, f"all {len(work)} ledger operations are slices on their stream's track "
       "at their GPU times", *missing[:5])
    ok(sum(len(x.slices[u]) for u in streams) == len(work),
       "no other slice on the stream tracks",
       f"{sum(len(x.slices[u]) for u in streams)} slices, {len(work)} operations")
    ok(all(not x.slices[u] or by_name.get(t.name) == u for u, t in streams.items()),
       "one track per stream")

    # ---- flows: host instant at the launch call's entry -> its kernel
    host = {}  # flow id -> (thread track, ts)
    for u in threads:
        for name, ts, flows in x.instants[u]:
            for f in flows:
                host[f] = (u, ts, name)
    launches = [w for w in work if w[0] == "launch"]
    flowed = 0
    bad = []
    for u in streams:
        for name, start, end, flows, terminating in x.slices[u]:
            if not any(w[1] == name and w[3] == start for w in launches):
                continue
            h = [host[f] for f in terminating if f in host]
            # the launch call as CUPTI names it: cudaLaunchKernel, or __cudaLaunchKernel
            # for a <<<>>> launch
            inside = h and any("LaunchKernel" in s[0] and s[1] <= h[0][1] <= s[2]
                               for s in x.slices[h[0][0]])
            if inside and h[0][2] == name:
                flowed += 1
            else:
                around = [s[0] for s in x.slices[h[0][0]] if s[1] <= h[0][1] <= s[2]] if h else []
                bad.append((name, start, terminating, h, around))
    ok(flowed == len(launches), f"each of the {len(launches)} launches has a flow from inside "
       "its launch call to its kernel", *bad[:5])
    copies = [w for w in work if w[0] != "launch"]
    terminated = {f for u in streams for s in x.slices[u] for f in s[4]}
    ok(sum(1 for f in terminated if f in host) == len(work),
       "every copy and memset has its flow too",
       f"{sum(1 for f in terminated if f in host)} flows, {len(copies)} copies and memsets, "
       f"{len(launches)} launches")
    arrows(x, len(work))

    # ---- NVTX ranges and API calls on the thread
    thread_slices = Counter(s[0] for u in threads for s in x.slices[u])
    for name, n in nvtx_want.items():
        ok(thread_slices[name] == n, f"NVTX range {name}: {n} slices on the thread",
           f"found {thread_slices[name]}")
    ok(thread_slices["cudaMalloc"] >= 3, "cudaMalloc calls are slices on the thread",
       f"found {thread_slices['cudaMalloc']}")

    # ---- the failed allocation, with the report's verdict
    _, failed = memory_report.read_ledger(ledger_path)
    failed = [f for f in failed if f["pid"] == pid]
    verdicts = [f["verdict"] for f in report["memory"]["failures"]]
    shown = [i for i in x.instants[proc] if "failed" in i[0]]
    ok(len(failed) == 1 and len(shown) == 1, "the failed allocation is one instant on the "
       "process track", f"ledger {failed}, instants {shown}")
    if failed and shown and verdicts:
        ok(f"{failed[0]['size']} bytes" in shown[0][0] and shown[0][0].endswith(verdicts[0]),
           f"its instant names its size and the report's verdict ({verdicts[0]})", shown[0][0])

    # ---- the live-memory counters
    devices, _ = memory_report.read_ledger(ledger_path)
    d = devices.get((pid, 0))
    counters = {t.name: t.uuid for t in x.children(proc) if t.HasField("counter")}
    ok(all("memory" in n for n in counters) and
       all(x.tracks[u].counter.unit == pb.CounterDescriptor.UNIT_SIZE_BYTES
           for u in counters.values()), "the counter tracks are of memory, in bytes",
       list(counters))
    values = x.counters.get(counters.get("GPU 0 memory"), [])
    peak = max((v for _, v in values), default=None)
    entry = [e for e in report["memory"]["devices"] if e["pid"] == pid and e["device"] == 0]
    ok(d is not None and peak == d.peak, "the memory counter's maximum is the ledger's peak",
       f"counter {peak}, ledger {d.peak if d else None}")
    ok(entry and peak == entry[0]["peak_bytes"], "... and the report's",
       f"counter {peak}, report {entry[0]['peak_bytes'] if entry else None}")
    ok(values and d is not None and values[-1][1] == d.on_device,
       "its last value is the ledger's live bytes at the end",
       f"counter {values[-1][1] if values else None}, ledger {d.on_device if d else None}")
    pinned = [v for _, v in x.counters.get(counters.get("GPU 0 memory: host_pinned"), [])]
    ok(pinned and max(pinned) == 1 << 20 and pinned[-1] == 0,
       "the pinned-memory counter rises to the pinned buffer's size and falls to 0", pinned)
    pooled = [v for _, v in x.counters.get(counters.get("GPU 0 memory: async"), [])]
    ok(pooled and max(pooled) == 1 << 20 and pooled[-1] == 0,
       "the async-memory counter rises to the pooled buffer's size and falls to 0", pooled)
    pools = [u for n, u in counters.items() if n.startswith("GPU 0 memory pool ")]
    reserved = [v for u in pools for _, v in x.counters[u]]
    ok(len(pools) == 1 and reserved and max(reserved) >= 1 << 20,
       "one pool's reserved bytes, at least the pooled buffer", list(counters), reserved)


def check_drops(args):
    export_path, ledger_path = args
    with open(ledger_path) as f:
        lines = [dict(i.split("=", 1) for i in line.split() if "=" in i) for line in f]
    dropped = sum(int(kv["count"]) for kv in lines if kv.get("op") == "cupti_drop")
    work = sum(1 for kv in lines if "gpu_start" in kv)
    x = Export(export_path)
    told = [name for u in x.instants for name, _, _ in x.instants[u]
            if name.startswith("CUPTI dropped ")]
    ok(dropped > 0, "the simulator dropped activity records", dropped)
    ok(sum(int(n.split()[2]) for n in told) == dropped,
       f"the instants count the {dropped} records dropped", told)
    slices = sum(len(x.slices[u]) for u, t in x.tracks.items() if "stream" in t.name)
    ok(slices <= work, "the stream tracks hold no more slices than the ledger has work",
       f"{slices} slices, {work} operations")


def check_decodes(path):
    x = Export(path)
    events = sum(len(v) for d in (x.slices, x.instants, x.counters) for v in d.values())
    ok(x.tracks and events, f"it decodes with Perfetto's protos: {len(x.tracks)} tracks, "
       f"{events} slices, instants and counter values")
    bad = [n for n in x.strings if not isinstance(n, str)]
    ok(not bad, "every name is UTF-8", *bad[:5])


def check_counters(args):
    export_path, expected_path = args
    with open(expected_path) as f:
        expected = json.load(f)
    x = Export(export_path)
    for name, values in expected.get("counters", {}).items():
        tracks = [u for u, t in x.tracks.items() if t.name == name]
        seen = [v for u in tracks for _, v in sorted(x.counters[u])]
        shown = [v for i, v in enumerate(seen) if i == 0 or seen[i - 1] != v]
        ok(len(tracks) == 1 and shown == values, f"the counter {name!r} shows {values}",
           f"{len(tracks)} tracks, values {shown}")
    names = [name for u in x.instants for name, _, _ in x.instants[u]]
    for prefix in expected.get("instants", []):
        ok(any(n.startswith(prefix) for n in names), f"an instant says {prefix!r}", *names[:5])


def main():
    modes = ("--drops", "--decodes", "--flows", "--counters")
    mode = sys.argv[1] if sys.argv[1:2] and sys.argv[1] in modes else None
    if len(sys.argv) != {"--drops": 4, "--decodes": 3, "--flows": 4, "--counters": 4,
                         None: 5}[mode]:
        sys.exit(__doc__)
    try:
        if mode == "--drops":
            check_drops(sys.argv[2:])
        elif mode == "--flows":
            check_flows(sys.argv[2:])
        elif mode == "--decodes":
            check_decodes(sys.argv[2])
        elif mode == "--counters":
            check_counters(sys.argv[2:])
        else:
            check(sys.argv[1:])
    except Exception as e:  # a file that does not decode fails, it does not skip
        ok(False, f"the export decodes and checks: {type(e).__name__}: {e}")
    print(f"1..{memory_report.tests}")
    sys.exit(1 if memory_report.failures else 0)


if __name__ == "__main__":
    main()
