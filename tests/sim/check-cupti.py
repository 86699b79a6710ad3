#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-cupti.py - compare what libtestinject received through CUPTI with
the simulator's ledger and with what the program says it did.

    check-cupti.py api  LEDGER INJECT_LOG PROGRAM_OUTPUT --nested=0|1
    check-cupti.py nvtx INJECT_LOG PROGRAM_OUTPUT

api: for every ledger operation (alloc, free, alloc_failed, memcpy, memset,
launch) the runtime callback at ENTER and EXIT with the ledger's correlation
id, the right parameters and return value; activity records whose ids,
sizes, kinds and GPU times equal the ledger's; unique correlation ids;
callbacks nested LIFO per thread; driver callbacks inside runtime calls only
with --nested=1 (CUDASIM_NESTED_DRIVER_CALLBACKS); synchronisation and
resource callbacks.

nvtx: the NVTX-domain callbacks arrived with their messages and domains, in
order, on the thread that made each call.

TAP on stdout. Python 3 standard library only.
"""

import os
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import simcheck  # noqa: E402
from simcheck import to_int, same_value, format_entry  # noqa: E402

# cupti_activity.h CUpti_ActivityMemcpyKind, by ledger dir=.
COPY_KINDS = {"HtoD": 1, "DtoH": 2, "DtoD": 8, "HtoH": 9, "PtoP": 10}
# cudaMemcpyKind a runtime call may pass for a ledger dir= (4: Default).
RUNTIME_KINDS = {"HtoD": {1, 4}, "DtoH": {2, 4}, "DtoD": {3, 4}, "HtoH": {0, 4}, "PtoP": {3, 4}}
# CUpti_ActivityMemoryKind by ledger kind=.
MEMORY_KINDS = {"device": {3}, "pitch": {3}, "async": {3}, "host_pinned": {2},
                "host_registered": {2}, "managed": {5}}
RT_STREAM_SYNC = {131, 239}   # cudaStreamSynchronize(_ptsz)
RT_DEVICE_SYNC = {165}        # cudaDeviceSynchronize
SYNC_STREAM, SYNC_CONTEXT = 1, 2
RESOURCE_CONTEXT_CREATED, RESOURCE_STREAM_CREATED = 1, 3
ACTIVITY_SYNC_STREAM, ACTIVITY_SYNC_CONTEXT = 3, 4
GPU_OPS = ("alloc", "free", "alloc_failed", "memcpy", "memset", "launch")


def decode(text):
    return urllib.parse.unquote(text) if text is not None else None


def seq_of(entry):
    return to_int(entry.get("seq")) or 0


class Call:
    """One reported API call: its ENTER and EXIT callback lines."""

    def __init__(self, enter):
        self.enter = enter
        self.exit = None
        self.domain = enter.get("domain")
        self.corr = to_int(enter.get("corr"))
        self.name = decode(enter.get("name"))
        self.tid = enter.get("tid")

    def get(self, key):
        """A parameter: from EXIT (out-pointers are there), else ENTER."""
        if self.exit is not None and key in self.exit:
            return self.exit[key]
        return self.enter.get(key)

    def span(self):
        return seq_of(self.enter), seq_of(self.exit) if self.exit else seq_of(self.enter)


def load_log(tap, path, pid):
    raw = simcheck.read_kv_file(path)
    if not tap.ok(raw is not None and len(raw) > 0, "the injection log %s exists" % path):
        return None
    bad = [e["_bad"] for e in raw if "_bad" in e]
    tap.ok(not bad, "every injection log line is key=value pairs", *bad[:3])
    lines = [e for e in raw if "_bad" not in e and e.get("pid") == str(pid)]
    lines.sort(key=seq_of)
    return lines


def events(lines, ev):
    return [e for e in lines if e.get("ev") == ev]


def check_setup(tap, lines, want_init):
    errors = events(lines, "error")
    tap.ok(not errors, "CUPTI accepted every call of the injection's set-up",
           *[format_entry(e) for e in errors[:8]])
    tap.ok(len(events(lines, "setup")) == 1, "the injection set itself up once")
    if want_init is not None:
        inits = events(lines, "init")
        tap.ok(len(inits) == want_init, "InitializeInjection was called %d time(s) (%d)" %
               (want_init, len(inits)))


def check_flush(tap, lines):
    flushes = events(lines, "exit_flush")
    tap.ok(len(flushes) == 1 and flushes[0].get("result") == "0",
           "cuptiActivityFlushAll(FORCED) at exit succeeded",
           *[format_entry(e) for e in flushes])
    dropped = events(lines, "dropped")
    tap.ok(not dropped, "no activity record was dropped", *[format_entry(e) for e in dropped])


def pair_calls(tap, lines):
    """ENTER/EXIT pairs by correlation id; checks uniqueness and pairing."""
    calls, problems, duplicates = {}, [], []
    for e in events(lines, "cb"):
        corr = to_int(e.get("corr"))
        if e.get("site") == "ENTER":
            if not corr:
                problems.append("correlation id 0: " + format_entry(e))
                continue
            if corr in calls:
                duplicates.append("%d: %s and %s" % (corr, calls[corr].name, e.get("name")))
                continue
            calls[corr] = Call(e)
        elif e.get("site") == "EXIT":
            call = calls.get(corr)
            if call is None or call.exit is not None:
                problems.append("EXIT without its ENTER: " + format_entry(e))
                continue
            call.exit = e
    for call in calls.values():
        if call.exit is None:
            problems.append("ENTER without EXIT: " + format_entry(call.enter))
            continue
        for key in ("cbid", "domain", "tid", "name"):
            if call.exit.get(key) != call.enter.get(key):
                problems.append("%s differs between ENTER and EXIT of corr %d" %
                                (key, call.corr))
        if call.exit.get("cdata_ok") != "1":
            problems.append("*correlationData not kept from ENTER to EXIT of corr %d (%s)" %
                            (call.corr, call.name))
        if call.exit.get("ret") in (None, "none"):
            problems.append("no functionReturnValue at EXIT of corr %d (%s)" %
                            (call.corr, call.name))
    tap.ok(len(calls) > 0, "API callbacks arrived (%d calls)" % len(calls))
    tap.ok(not duplicates, "correlation ids are unique per call", *duplicates[:5])
    tap.ok(not problems, "every ENTER has one EXIT with the same correlation id, cbid, "
           "thread, *correlationData and a return value", *problems[:8])
    return calls


def check_nesting(tap, lines, calls, nested):
    """Per thread, callbacks nest LIFO; driver callbacks appear inside
    runtime calls only when nested."""
    stacks, lifo, inside = {}, [], []
    for e in events(lines, "cb"):
        stack = stacks.setdefault(e.get("tid"), [])
        corr = to_int(e.get("corr"))
        if e.get("site") == "ENTER":
            if e.get("domain") == "driver" and any(c.domain == "runtime" for c in stack):
                inside.append((stack[-1], e))
            if corr in calls:
                stack.append(calls[corr])
        elif stack and stack[-1].corr == corr:
            stack.pop()
        else:
            lifo.append("EXIT of corr %s (%s) while %s is innermost" %
                        (corr, decode(e.get("name")), stack[-1].name if stack else "nothing"))
    tap.ok(not lifo, "callbacks nest LIFO on every thread", *lifo[:5])
    if not nested:
        tap.ok(not inside, "no driver callbacks inside runtime calls "
               "(CUDASIM_NESTED_DRIVER_CALLBACKS=0)",
               *["%s inside %s" % (decode(e.get("name")), c.name) for c, e in inside[:5]])
    return inside


def check_nested_driver(tap, lines, calls, ledger, inside):
    """With nesting on: the runtime calls behind ledger operations show the
    driver calls they make, each with its own id and its own DRIVER record."""
    by_outer = {}
    for outer, e in inside:
        by_outer.setdefault(outer.corr, []).append(e)
    missing = []
    for entry in ledger:
        corr = to_int(entry.get("corr"))
        call = calls.get(corr)
        if entry.get("op") in GPU_OPS and call and call.domain == "runtime":
            if not by_outer.get(corr):
                missing.append("%s (corr %d, op=%s)" % (call.name, corr, entry.get("op")))
    tap.ok(not missing, "every runtime call behind a ledger operation shows its driver "
           "calls nested inside (CUDASIM_NESTED_DRIVER_CALLBACKS=1)", *missing[:6])
    records = {to_int(r.get("corr")): r for r in activity(lines, "DRIVER")}
    absent = []
    for _, e in inside:
        rec = records.get(to_int(e.get("corr")))
        if rec is None or rec.get("cbid") != e.get("cbid"):
            absent.append("%s corr %s" % (decode(e.get("name")), e.get("corr")))
    tap.ok(inside and not absent, "each nested driver call has a DRIVER record with its own "
           "correlation id", *absent[:6])


def activity(lines, kind):
    return [e for e in lines if e.get("ev") == "act" and e.get("kind") == kind]


def check_params(entry, call):
    """Problems between a ledger line and the API call behind it."""
    op, out = entry.get("op"), []

    def want(key, value, what):
        got = call.get(key)
        if got is None or not same_value(got, value):
            out.append("%s: callback %s=%s, ledger %s" % (what, key, got, value))

    if op in ("alloc", "alloc_failed"):
        want("size", entry.get("size"), "requested size")
        if op == "alloc":
            want("ptr", entry.get("addr"), "returned pointer")
    elif op == "free":
        want("ptr", entry.get("addr"), "freed pointer")
    elif op == "memcpy":
        want("size", entry.get("bytes"), "bytes")
        want("dst", entry.get("dst"), "destination")
        want("src", entry.get("src"), "source")
        kind = to_int(call.get("kind"))
        if call.domain == "runtime" and kind not in RUNTIME_KINDS.get(entry.get("dir"), ()):
            out.append("cudaMemcpyKind %s for dir=%s" % (kind, entry.get("dir")))
    elif op == "memset":
        want("dst", entry.get("dst"), "destination")
        want("value", entry.get("value"), "value")
        if call.get("size") is not None:
            want("size", entry.get("bytes"), "bytes")
        elif call.get("count") is not None:
            count, elem = to_int(call.get("count")), to_int(call.get("elem")) or 1
            if count * elem != to_int(entry.get("bytes")):
                out.append("count %s x %s bytes != ledger bytes %s" %
                           (count, elem, entry.get("bytes")))
    elif op == "launch":
        if decode(call.get("symbol")) != entry.get("name"):
            out.append("symbolName %s, ledger name %s" % (decode(call.get("symbol")),
                                                          entry.get("name")))
    ret = to_int(call.get("ret"))
    if op == "alloc_failed":
        if ret != 2:
            out.append("return value at EXIT %s, expected 2 (out of memory)" % ret)
    elif ret != 0:
        out.append("return value at EXIT %s, expected 0" % ret)
    return out


def check_ledger_callbacks(tap, ledger, calls):
    """Each ledger operation has its API call, by correlation id."""
    count = 0
    for entry in ledger:
        if entry.get("op") not in GPU_OPS:
            continue
        corr = to_int(entry.get("corr"))
        call = calls.get(corr)
        what = "%s %s corr=%s" % (entry.get("op"), entry.get("api"), entry.get("corr"))
        if not call:
            tap.ok(False, "callbacks for ledger " + what, "no callback has correlation id %s" %
                   entry.get("corr"))
            continue
        problems = check_params(entry, call)
        if call.name != entry.get("api"):
            problems.append("callback name %s, ledger api=%s" % (call.name, entry.get("api")))
        tap.ok(not problems, "ENTER/EXIT callbacks match ledger " + what, *problems)
        count += 1
    tap.ok(count > 0, "the ledger has operations to compare (%d)" % count)


def take(records, used, corr, test):
    for index, rec in enumerate(records):
        if index not in used and to_int(rec.get("corr")) == corr and test(rec):
            used.add(index)
            return rec
    return None


def check_gpu_record(entry, rec):
    out = []
    for key, ledger_key in (("start", "gpu_start"), ("end", "gpu_end"),
                            ("stream", "stream"), ("dev", "dev")):
        if not same_value(rec.get(key), entry.get(ledger_key)):
            out.append("record %s=%s, ledger %s=%s" % (key, rec.get(key), ledger_key,
                                                        entry.get(ledger_key)))
    return out


def check_activity(tap, lines, ledger, calls):
    """Activity records agree with the ledger line by line."""
    kinds = {"memcpy": activity(lines, "MEMCPY"), "memset": activity(lines, "MEMSET"),
             "launch": activity(lines, "KERNEL"), "memory": activity(lines, "MEMORY2")}
    used = {k: set() for k in kinds}
    problems, rcorr = [], []
    for entry in ledger:
        op, corr = entry.get("op"), to_int(entry.get("corr"))
        if op in ("memcpy", "memset", "launch"):
            rec = take(kinds[op], used[op], corr, lambda r: same_value(r.get("start"),
                                                                       entry.get("gpu_start")))
            if rec is None:
                rec = take(kinds[op], used[op], corr, lambda r: True)
            if rec is None:
                problems.append("no %s record with corr %s for %s" % (op, corr,
                                                                       format_entry(entry)))
                continue
            out = check_gpu_record(entry, rec)
            if op == "memcpy":
                if to_int(rec.get("bytes")) != to_int(entry.get("bytes")):
                    out.append("bytes %s != %s" % (rec.get("bytes"), entry.get("bytes")))
                if to_int(rec.get("copyKind")) != COPY_KINDS.get(entry.get("dir")):
                    out.append("copyKind %s for dir=%s" % (rec.get("copyKind"), entry.get("dir")))
                call = calls.get(corr)
                if call and call.domain == "runtime" and to_int(rec.get("rcorr")) != corr:
                    rcorr.append("memcpy corr %s: runtimeCorrelationId %s" % (corr,
                                                                              rec.get("rcorr")))
            elif op == "memset":
                for key, lkey in (("bytes", "bytes"), ("value", "value")):
                    if to_int(rec.get(key)) != to_int(entry.get(lkey)):
                        out.append("%s %s != %s" % (key, rec.get(key), entry.get(lkey)))
            else:
                for key in ("name", "grid", "block"):
                    if rec.get(key) != entry.get(key):
                        out.append("%s %s != %s" % (key, rec.get(key), entry.get(key)))
                if to_int(rec.get("shmem")) != to_int(entry.get("shmem")):
                    out.append("shmem %s != %s" % (rec.get("shmem"), entry.get("shmem")))
            if out:
                problems.append("%s: %s" % (format_entry(entry), "; ".join(out)))
        elif op in ("alloc", "free") and entry.get("kind") in MEMORY_KINDS:
            memop = 1 if op == "alloc" else 2
            rec = take(kinds["memory"], used["memory"], corr,
                       lambda r: to_int(r.get("memop")) == memop and
                       same_value(r.get("addr"), entry.get("addr")))
            if rec is None:
                problems.append("no MEMORY2 record (op %d) with corr %s at %s" %
                                (memop, corr, entry.get("addr")))
                continue
            out = []
            if to_int(rec.get("bytes")) != to_int(entry.get("size")):
                out.append("bytes %s != size %s" % (rec.get("bytes"), entry.get("size")))
            if to_int(rec.get("memkind")) not in MEMORY_KINDS[entry.get("kind")]:
                out.append("memoryKind %s for kind=%s" % (rec.get("memkind"), entry.get("kind")))
            if out:
                problems.append("%s: %s" % (format_entry(entry), "; ".join(out)))
    tap.ok(not problems, "kernel, memcpy, memset and MEMORY2 records match the ledger: ids, "
           "sizes, kinds, streams, start = gpu_start, end = gpu_end", *problems[:8])
    tap.ok(not rcorr, "memcpy records of runtime calls carry the runtime correlation id in "
           "runtimeCorrelationId", *rcorr[:4])
    for op in ("memcpy", "memset", "launch"):
        want = sum(1 for e in ledger if e.get("op") == op)
        tap.ok(len(kinds[op]) == want, "%d %s records for %d ledger lines" %
               (len(kinds[op]), op, want))


def check_api_records(tap, lines, calls):
    """A RUNTIME or DRIVER record per reported call, on the subscriber's
    clock (CLOCK_MONOTONIC: close to the callbacks' own times)."""
    records = {}
    duplicates = []
    for kind in ("RUNTIME", "DRIVER"):
        for rec in activity(lines, kind):
            corr = to_int(rec.get("corr"))
            if corr in records:
                duplicates.append("corr %s" % corr)
            records[corr] = rec
    tap.ok(not duplicates, "one API record per correlation id", *duplicates[:5])
    problems = []
    for call in calls.values():
        rec = records.get(call.corr)
        kind = "RUNTIME" if call.domain == "runtime" else "DRIVER"
        if rec is None or rec.get("kind") != kind:
            problems.append("no %s record for %s corr %d" % (kind, call.name, call.corr))
            continue
        start, end = to_int(rec.get("start")), to_int(rec.get("end"))
        entered = to_int(call.enter.get("t"))
        out = []
        if rec.get("cbid") != call.enter.get("cbid"):
            out.append("cbid %s != %s" % (rec.get("cbid"), call.enter.get("cbid")))
        if call.exit and to_int(rec.get("ret")) != to_int(call.exit.get("ret")):
            out.append("returnValue %s != %s" % (rec.get("ret"), call.exit.get("ret")))
        if start is None or end is None or start > end:
            out.append("start %s end %s" % (start, end))
        elif abs(start - entered) > 50000000:
            out.append("start %d is %d ns from the ENTER callback: not the subscriber's clock" %
                       (start, start - entered))
        if out:
            problems.append("%s corr %d: %s" % (call.name, call.corr, "; ".join(out)))
    tap.ok(not problems, "every reported call has its API record with cbid, return value and "
           "CLOCK_MONOTONIC start <= end", *problems[:8])
    return records


def check_no_nested_records(tap, lines):
    """Without nesting, no DRIVER record lies inside a RUNTIME record of the
    same thread."""
    runtime = activity(lines, "RUNTIME")
    inside = []
    for drv in activity(lines, "DRIVER"):
        s, e, tid = to_int(drv.get("start")), to_int(drv.get("end")), drv.get("rec_tid")
        for rt in runtime:
            if rt.get("rec_tid") == tid and to_int(rt.get("start")) <= s and \
                    e <= to_int(rt.get("end")):
                inside.append("DRIVER cbid %s corr %s inside RUNTIME cbid %s corr %s" %
                              (drv.get("cbid"), drv.get("corr"), rt.get("cbid"), rt.get("corr")))
                break
    tap.ok(not inside, "no DRIVER records inside RUNTIME calls "
           "(CUDASIM_NESTED_DRIVER_CALLBACKS=0)", *inside[:5])


def check_sync(tap, lines, calls):
    """cudaStreamSynchronize / cudaDeviceSynchronize: a SYNCHRONIZE-domain
    callback during the call, and a SYNCHRONIZATION record with its id."""
    syncs = events(lines, "sync")
    records = activity(lines, "SYNC")
    problems, seen = [], 0
    for call in calls.values():
        cbid = to_int(call.enter.get("cbid"))
        if call.domain != "runtime" or cbid not in RT_STREAM_SYNC | RT_DEVICE_SYNC:
            continue
        seen += 1
        want_cb = SYNC_STREAM if cbid in RT_STREAM_SYNC else SYNC_CONTEXT
        want_type = ACTIVITY_SYNC_STREAM if cbid in RT_STREAM_SYNC else ACTIVITY_SYNC_CONTEXT
        first, last = call.span()
        if not any(to_int(s.get("cbid")) == want_cb and s.get("tid") == call.tid and
                   first < seq_of(s) < last for s in syncs):
            problems.append("no SYNCHRONIZE callback %d during %s corr %d" %
                            (want_cb, call.name, call.corr))
        if not any(to_int(r.get("corr")) == call.corr and to_int(r.get("type")) == want_type
                   for r in records):
            problems.append("no SYNCHRONIZATION record (type %d) with corr %d" %
                            (want_type, call.corr))
    tap.ok(seen > 0 and not problems, "each synchronisation call (%d) has its SYNCHRONIZE "
           "callback and SYNCHRONIZATION record" % seen, *problems[:6])


def check_resources(tap, lines, ledger, calls):
    resources = events(lines, "resource")
    created = [r for r in resources if to_int(r.get("cbid")) == RESOURCE_CONTEXT_CREATED]
    allocs = [c for c in calls.values() if c.domain == "runtime" and
              c.name in ("cudaMalloc", "cudaMemcpy", "cudaMallocHost")]
    first_use = min((seq_of(c.enter) for c in allocs), default=None)
    tap.ok(created and (first_use is None or seq_of(created[0]) < first_use),
           "CONTEXT_CREATED arrived before the first memory call")
    stream_ids = sorted(r.get("streamid") for r in resources
                        if to_int(r.get("cbid")) == RESOURCE_STREAM_CREATED)
    ledger_ids = sorted(e.get("stream") for e in ledger if e.get("op") == "stream_create")
    tap.ok(stream_ids == ledger_ids, "STREAM_CREATED callbacks name the ledger's created "
           "streams (cuptiGetStreamIdEx)", "callbacks: %s" % stream_ids, "ledger: %s" % ledger_ids)


def api_mode(tap, ledger_path, log_path, output_path, nested):
    expects, facts = simcheck.read_program_output(output_path)
    pid = facts.get("pid")
    if not tap.ok(pid is not None, "the program printed its pid"):
        return
    raw = simcheck.read_kv_file(ledger_path) or []
    ledger = simcheck.ledger_for_pid(raw, pid)
    tap.ok(len(ledger) > 0, "the ledger has lines of pid %s" % pid)
    list(simcheck.match_expectations(tap, ledger, expects))
    lines = load_log(tap, log_path, pid)
    if lines is None:
        return
    check_setup(tap, lines, 1)
    check_flush(tap, lines)
    calls = pair_calls(tap, lines)
    inside = check_nesting(tap, lines, calls, nested)
    check_ledger_callbacks(tap, ledger, calls)
    check_activity(tap, lines, ledger, calls)
    check_api_records(tap, lines, calls)
    if nested:
        check_nested_driver(tap, lines, calls, ledger, inside)
    else:
        check_no_nested_records(tap, lines)
    check_sync(tap, lines, calls)
    check_resources(tap, lines, ledger, calls)


def nvtx_expectations(path):
    """The program's '# nvtx' lines, per thread, in order."""
    per_thread = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("# nvtx "):
                fields = simcheck.parse_kv(line[len("# nvtx "):]) or {}
                per_thread.setdefault(fields.get("tid"), []).append(fields)
    return per_thread


def nvtx_mode(tap, log_path, output_path):
    _, facts = simcheck.read_program_output(output_path)
    pid = facts.get("pid")
    if not tap.ok(pid is not None, "the program printed its pid"):
        return
    expected = nvtx_expectations(output_path)
    tap.ok(len(expected) >= 2, "the program announced NVTX calls on %d threads" % len(expected))
    lines = load_log(tap, log_path, pid)
    if lines is None:
        return
    check_setup(tap, lines, None)
    inits = events(lines, "nvtx_init")
    tap.ok(inits and all(e.get("result") == "0" for e in inits),
           "InitializeInjectionNvtx2 ran and cuptiNvtxInitialize2 succeeded (%d)" % len(inits))
    got = {}
    for e in events(lines, "nvtx"):
        got.setdefault(e.get("tid"), []).append(e)
    for tid, wants in sorted(expected.items()):
        have = got.get(tid, [])
        names = [decode(e.get("name")) for e in have]
        tap.ok(names == [w.get("name") for w in wants],
               "thread %s: the NVTX callbacks arrived in the program's order" % tid,
               "got:      %s" % " ".join(names),
               "expected: %s" % " ".join(w.get("name") for w in wants))
        problems = []
        for want, e in zip(wants, have):
            for key in ("message", "domain"):
                if key in want and decode(e.get(key)) != want[key]:
                    problems.append("%s: %s=%s, expected %s" % (want.get("name"), key,
                                                               decode(e.get(key)), want[key]))
        tap.ok(not problems, "thread %s: messages (ASCII and registered) and domains" % tid,
               *problems[:6])
    strays = [tid for tid in got if tid not in expected]
    tap.ok(not strays, "no NVTX callbacks on threads that made no NVTX call", *strays)
    starts = [e for e in events(lines, "nvtx") if decode(e.get("name")) == "nvtxRangeStartA"]
    ends = [e for e in events(lines, "nvtx") if decode(e.get("name")) == "nvtxRangeEnd"]
    tap.ok(len(starts) == 1 and len(ends) == 1 and starts[0].get("ret") == ends[0].get("id"),
           "nvtxRangeEnd closes the id nvtxRangeStartA returned",
           *[format_entry(e) for e in starts + ends])


def main(argv):
    tap = simcheck.Tap()
    if len(argv) >= 5 and argv[1] == "api":
        nested = "--nested=1" in argv[5:]
        api_mode(tap, argv[2], argv[3], argv[4], nested)
    elif len(argv) >= 4 and argv[1] == "nvtx":
        nvtx_mode(tap, argv[2], argv[3])
    else:
        sys.stderr.write(__doc__)
        return 2
    return tap.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
