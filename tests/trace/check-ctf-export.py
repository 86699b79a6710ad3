#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# check-ctf-export.py - the GPU-time trace of `cudatrace export --format ctf`
# against the simulator's ledger and the trace it was made from, as TAP:
#
#   /usr/bin/python3 check-ctf-export.py --ledger LEDGER --trace TRACE --export DIR
#                                        [--streams N]
#
#   - babeltrace2 reads the export;
#   - every kernel, copy and memset of the ledger is one begin event and one
#     end event (kernel_begin/_end, memcpy_*, memset_*) of its process and
#     correlation id, at the ledger's GPU start and end (the events'
#     timestamps, raw clock values in ns), and the export has nothing else;
#     a graph launch's operations share its correlation id: those of one
#     kind are paired with the ledger's in GPU-time order;
#   - each stream holds the operations of one process, device and CUDA
#     stream, those of the ledger, its file named after them, a begin and its end
#     in turn (a CUDA stream runs one operation at a time);
#   - kernel names, copy directions and bytes are the ledger's;
#   - the clock class is the original trace's (name, frequency, offset,
#     origin, UUID) and so is the environment, domain "ust" and tracer
#     "lttng-ust" included.
#
# Needs Babeltrace 2's Python bindings (Debian: python3-bt2).

import argparse
import collections
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tracecheck import GPU_TIME_TOLERANCE_NS, Tap, load_ledger, number  # noqa: E402

try:
    import bt2
except ImportError:
    print("not ok 1 - /usr/bin/python3 cannot import bt2 (Debian: python3-bt2)")
    print("1..1")
    sys.exit(1)

KIND_OF_OP = {"launch": "kernel", "memcpy": "memcpy", "memset": "memset"}


def disorder(path):
    """(GPU records of the trace under PATH, how many came after one that
    starts later): how far from GPU-time order the export's input was."""
    count, late, newest = 0, 0, None
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is not bt2._EventMessageConst:
            continue
        payload = msg.event.payload_field
        if msg.event.name == "cudatrace:gpu_batch":
            # a record a kernel, copy or memset, starting base + start[i] (doc/events.md)
            starts = [int(payload["base"]) + int(s) for s in payload["start"]]
        elif msg.event.name in ("cudatrace:gpu_kernel", "cudatrace:gpu_kernel_times",
                                "cudatrace:gpu_kernel_shaped", "cudatrace:gpu_memcpy",
                                "cudatrace:gpu_memcpy_times", "cudatrace:gpu_memset",
                                "cudatrace:gpu_memset_times"):
            starts = [int(payload["start"])]
        else:
            continue
        for start in starts:
            count += 1
            if newest is not None and start < newest:
                late += 1
            newest = start if newest is None else max(newest, start)
    return count, late


def read(path):
    """(events, clock classes, environments) of the trace(s) under PATH.
    Each event: name, ts (raw clock value), stream (name, id), payload and
    common context as dicts."""
    events, clocks, envs = [], [], []
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._StreamBeginningMessageConst:
            stream = msg.stream
            clocks.append(stream.cls.default_clock_class)
            envs.append({k: v for k, v in stream.trace.environment.items()})
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        ctx = ev.common_context_field
        events.append({
            "name": ev.name,
            "ts": msg.default_clock_snapshot.value,
            "stream": (ev.stream.name, ev.stream.id),
            "payload": {k: ev.payload_field[k] for k in ev.payload_field},
            "context": {k: ctx[k] for k in ctx} if ctx is not None else {},
        })
    return events, clocks, envs


def clock_props(cc):
    return (cc.name, cc.frequency, cc.offset.seconds, cc.offset.cycles,
            cc.origin_is_unix_epoch, str(cc.uuid) if cc.uuid else None)


def plain(value):
    """A bt2 field or value as a Python value."""
    for kind in (int, str):
        try:
            return kind(value)
        except (TypeError, ValueError):
            continue
    return value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ledger", required=True)
    parser.add_argument("--trace", required=True)
    parser.add_argument("--export", required=True)
    parser.add_argument("--streams", type=int, default=2,
                        help="the CUDA streams the ledger has at least (default 2)")
    args = parser.parse_args()
    tap = Tap()

    try:
        events, clocks, envs = read(args.export)
        read_error = None
    except Exception as error:  # bt2 raises its own errors
        events, clocks, envs, read_error = [], [], [], error
    tap.ok(read_error is None and events, "babeltrace2 reads the export (%d events)"
           % len(events), [str(read_error)] if read_error else [])
    orig_events, orig_clocks, orig_envs = read(args.trace)
    tap.diag("the trace's GPU records: %d, of which %d came after one that starts later"
             % disorder(args.trace))

    ledger = [op for op in load_ledger(args.ledger)
              if op["op"] in KIND_OF_OP and "gpu_start" in op]
    # (pid, kind, corr) -> its operations, in GPU-time order: several for a graph launch
    want = collections.defaultdict(list)
    for op in sorted(ledger, key=lambda op: number(op["gpu_start"])):
        want[(number(op["pid"]), KIND_OF_OP[op["op"]], number(op["corr"]))].append(op)
    shared = [op for ops in want.values() if len(ops) > 1 for op in ops
              if not op.get("api", "").endswith("GraphLaunch")]
    tap.ok(not shared and ledger,
           "the ledger has kernels, copies and memsets, one per process and correlation id "
           "but for what graph launches replay (%d)" % len(ledger),
           ["%s corr %s shares its id" % (op["op"], op["corr"]) for op in shared])

    pairs = collections.defaultdict(lambda: {"begin": [], "end": []})
    details = []
    for ev in events:
        kind, _, edge = ev["name"].partition(":")[2].rpartition("_")
        key = (plain(ev["context"].get("vpid")), kind, plain(ev["payload"]["correlation_id"]))
        if edge not in ("begin", "end"):
            details.append("%s correlation_id=%s: unexpected" % (ev["name"], key[2]))
            continue
        pairs[key][edge].append(ev)
    for got in pairs.values():
        for edge in got.values():
            edge.sort(key=lambda ev: ev["ts"])
    for key, ops in sorted(want.items()):
        got = pairs.get(key, {"begin": [], "end": []})
        if len(got["begin"]) != len(ops) or len(got["end"]) != len(ops):
            details.append("%s of pid %s corr %s: %d begins and %d ends for %d operations"
                           % (key[1], key[0], key[2], len(got["begin"]), len(got["end"]),
                              len(ops)))
            continue
        for i, op in enumerate(ops):
            for edge, field in (("begin", "gpu_start"), ("end", "gpu_end")):
                if abs(got[edge][i]["ts"] - number(op[field])) > GPU_TIME_TOLERANCE_NS:
                    details.append("%s corr %s: %s at %d, the ledger's %s %s"
                                   % (key[1], key[2], edge, got[edge][i]["ts"], field,
                                      op[field]))
    extra = sorted(set(pairs) - set(want))
    details += ["%s of pid %s corr %s: not in the ledger" % (k[1], k[0], k[2]) for k in extra]
    tap.ok(not details, "every kernel, copy and memset of the ledger is a begin and an end at "
           "its GPU start and end, within %d ns, and nothing else (%d operations)"
           % (GPU_TIME_TOLERANCE_NS, len(ledger)), details)

    details = []
    for key, op, begin in ((key, op, begin) for key, ops in sorted(want.items())
                           for op, begin in zip(ops, pairs.get(key, {}).get("begin", []))):
        p = begin["payload"]
        if key[1] == "kernel" and plain(p["name"]) != op.get("name"):
            details.append("kernel corr %s: name %s, the ledger's %s"
                           % (key[2], plain(p["name"]), op.get("name")))
        if key[1] == "memcpy" and plain(p["direction"]) != op.get("dir"):
            details.append("memcpy corr %s: direction %s, the ledger's %s"
                           % (key[2], plain(p["direction"]), op.get("dir")))
        if key[1] != "kernel" and plain(p["bytes"]) != number(op.get("bytes")):
            details.append("%s corr %s: %s bytes, the ledger's %s"
                           % (key[1], key[2], plain(p["bytes"]), op.get("bytes")))
    tap.ok(not details, "kernel names, copy directions and bytes are the ledger's", details)

    details = []
    by_stream = collections.defaultdict(list)
    for ev in events:
        by_stream[ev["stream"]].append(ev)
    ledger_streams = {(number(op["pid"]), number(op["dev"]), number(op["stream"]))
                      for op in ledger}
    seen_streams = set()
    for (name, sid), evs in sorted(by_stream.items(), key=lambda i: str(i[0])):
        where = {(plain(e["context"]["vpid"]), plain(e["payload"]["device"]),
                  plain(e["payload"]["stream"])) for e in evs}
        if len(where) != 1:
            details.append("stream %s holds several streams: %s" % (name, sorted(where)))
            continue
        vpid, dev, stream = where.pop()
        seen_streams.add((vpid, dev, stream))
        # CTF 1.8 keeps a stream's name as its file's; a CUDA stream's
        # operations that came out of order are in its next lanes
        if not re.fullmatch(r"pid%d-device%d-stream%d(-lane[2-9])?" % (vpid, dev, stream),
                            os.path.basename(name)):
            details.append("stream %s holds pid %d device %d stream %d" % (name, vpid, dev,
                                                                              stream))
        last, open_corr = None, None
        for e in evs:
            if last is not None and e["ts"] < last:
                details.append("stream %s goes back in time at %d" % (name, e["ts"]))
            last = e["ts"]
            edge = e["name"].rpartition("_")[2]
            corr = plain(e["payload"]["correlation_id"])
            if edge == "begin" and open_corr is None:
                open_corr = corr
            elif edge == "end" and open_corr == corr:
                open_corr = None
            else:
                details.append("stream %s: %s of corr %s while corr %s is open"
                               % (name, e["name"], corr, open_corr))
    if seen_streams != ledger_streams:
        details.append("streams %s, the ledger's %s" % (sorted(seen_streams),
                                                        sorted(ledger_streams)))
    tap.ok(not details and len(ledger_streams) >= args.streams,
           "one stream per process, device and CUDA stream, in time order, each operation's "
           "begin then its end (%d streams)" % len(by_stream), details)

    details = []
    names = collections.defaultdict(set)
    for e in orig_events:
        if "vpid" in e["context"] and "procname" in e["context"]:
            names[plain(e["context"]["vpid"])].add(plain(e["context"]["procname"]))
    for e in events:
        vpid, name = plain(e["context"].get("vpid")), plain(e["context"].get("procname"))
        if name not in names.get(vpid, ()):
            details.append("%s corr %s: procname %r, pid %s's in the trace %s"
                           % (e["name"], plain(e["payload"]["correlation_id"]), name, vpid,
                              sorted(names.get(vpid, ()))))
    tap.ok(events and not details, "each event's procname is its process's in the trace",
           sorted(set(details))[:10])

    details = []
    orig = {clock_props(c) for c in orig_clocks}
    mine = {clock_props(c) for c in clocks}
    if not mine or not mine <= orig:
        details.append("clock classes %s, the trace's %s" % (sorted(mine), sorted(orig)))
    tap.ok(not details, "the export's clock class is the trace's: name, frequency, offset, "
           "origin, UUID", details)

    details = []
    orig_env = {k: plain(v) for k, v in orig_envs[0].items()} if orig_envs else {}
    for env in envs:
        env = {k: plain(v) for k, v in env.items()}
        for k, v in orig_env.items():
            if env.get(k) != v:
                details.append("environment %s = %r, the trace's %r" % (k, env.get(k), v))
        if env.get("domain") != "ust" or env.get("tracer_name") != "lttng-ust":
            details.append("domain %r, tracer_name %r" % (env.get("domain"),
                                                          env.get("tracer_name")))
    tap.ok(envs and not details, "the export's environment is the trace's, an LTTng-UST one "
           "(%d entries)" % len(orig_env), sorted(set(details)))
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
