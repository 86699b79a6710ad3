#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# read-trace.py - print an LTTng trace as one key=value line per event, for
# the tests that compare a trace with the simulator's ledger.
#
#   /usr/bin/python3 read-trace.py [--ns-from-origin] TRACE_DIR
#
# Each line: event=PROVIDER:NAME ts=NS, then the context fields (vpid, vtid,
# procname), then the payload fields in their declared order. ts is the raw
# clock value: for LTTng's default clock that is CLOCK_MONOTONIC in ns, the
# clock of the simulator's ledger and of the tracer's GPU times
# (--ns-from-origin prints ns since the Unix epoch instead). Integers shown
# in hexadecimal by the trace's metadata print as 0x...; enumerations print
# their label; nested structures print as dotted keys and arrays as
# comma-separated lists (the _X_length field of a sequence X is left out).
# In values, bytes outside printable ASCII and the characters ' ', '%' and
# ',' are percent-encoded, so that a line splits on spaces and each pair on
# its first '='. A payload key that repeats an earlier key gets the prefix
# "payload.".
#
# Events the tracer lost are lines of their own: event=lttng:discarded_events
# count=N (or event=lttng:discarded_packets count=N), so that a test fails
# loudly rather than missing events silently.
#
# Needs Babeltrace 2's Python bindings: on Debian, /usr/bin/python3 with the
# python3-bt2 package. Exit status: 0, 1 when the trace cannot be read, 2 on
# bad usage.

import os
import sys

try:
    import bt2
except ImportError:
    sys.stderr.write("read-trace.py: needs the bt2 module (Debian: python3-bt2, "
                     "for /usr/bin/python3)\n")
    sys.exit(2)

RESERVED_KEYS = ("event", "ts")
SAFE_BYTES = frozenset(range(0x21, 0x7f)) - {ord("%"), ord(",")}


def encode(text):
    """Percent-encode what would break a space-separated key=value line."""
    out = []
    for byte in text.encode("utf-8", "surrogateescape"):
        out.append(chr(byte) if byte in SAFE_BYTES else "%%%02X" % byte)
    return "".join(out)


def integer_text(field):
    base = getattr(field.cls, "preferred_display_base", 10)
    value = int(field)
    if base == 16:
        return "0x%x" % value if value >= 0 else "-0x%x" % -value
    return str(value)


def field_text(field):
    """The value of a scalar or array field as text."""
    if isinstance(field, bt2._EnumerationFieldConst):
        labels = sorted(field.labels)
        return encode("|".join(labels)) if labels else str(int(field))
    if isinstance(field, bt2._BoolFieldConst):
        return "1" if field else "0"
    if isinstance(field, bt2._IntegerFieldConst):
        return integer_text(field)
    if isinstance(field, bt2._RealFieldConst):
        return repr(float(field))
    if isinstance(field, bt2._StringFieldConst):
        return encode(str(field))
    if isinstance(field, bt2._ArrayFieldConst):
        return ",".join(field_text(item) for item in field)
    if isinstance(field, bt2._OptionFieldConst):
        return field_text(field.field) if field.has_field else ""
    if isinstance(field, bt2._VariantFieldConst):
        return field_text(field.selected_option)
    if isinstance(field, bt2._BitArrayFieldConst):
        return "0x%x" % field.value_as_integer
    return encode(str(field))


def flatten(prefix, field, pairs):
    """Append (key, text) pairs for FIELD; structures become dotted keys.
    The length field LTTng writes before a sequence X (_X_length) is left
    out: the value of X says it."""
    if isinstance(field, bt2._StructureFieldConst):
        names = set(field.keys())
        for name, member in field.items():
            if name.startswith("_") and name.endswith("_length") and name[1:-7] in names:
                continue
            key = prefix + name if not prefix else prefix + "." + name
            # Babeltrace 2.0.4 leaves the previous value in a string field
            # whose text sequence is empty: its length says so.
            length = "_%s_length" % name
            if (isinstance(member, bt2._StringFieldConst) and length in names
                    and int(field[length]) == 0):
                pairs.append((key, ""))
                continue
            flatten(key, member, pairs)
    else:
        pairs.append((prefix, field_text(field)))


def event_line(msg, ns_from_origin):
    event = msg.event
    snapshot = msg.default_clock_snapshot
    ts = snapshot.ns_from_origin if ns_from_origin else snapshot.value
    pairs = [("event", event.name), ("ts", str(ts))]
    for context in (event.common_context_field, event.specific_context_field):
        if context is not None:
            flatten("", context, pairs)
    payload = []
    if event.payload_field is not None:
        flatten("", event.payload_field, payload)
    seen = {key for key, _ in pairs}
    for key, text in payload:
        pairs.append(("payload." + key if key in seen or key in RESERVED_KEYS else key, text))
    return " ".join("%s=%s" % pair for pair in pairs)


def discarded_line(msg, what):
    count = msg.count
    return "event=lttng:discarded_%s count=%s" % (what, "unknown" if count is None else count)


def has_metadata(path):
    for _, _, files in os.walk(path):
        if "metadata" in files:
            return True
    return False


def main(argv):
    ns_from_origin = False
    args = argv[1:]
    if args and args[0] == "--ns-from-origin":
        ns_from_origin = True
        args = args[1:]
    if len(args) != 1:
        sys.stderr.write("usage: read-trace.py [--ns-from-origin] TRACE_DIR\n")
        return 2
    path = args[0]
    if not os.path.isdir(path):
        sys.stderr.write("read-trace.py: %s: not a directory\n" % path)
        return 1
    # A session in which no process ever registered leaves no stream at
    # all: that is an empty trace, not an unreadable one.
    if not has_metadata(path):
        return 0
    out = sys.stdout
    try:
        for msg in bt2.TraceCollectionMessageIterator(path):
            if isinstance(msg, bt2._EventMessageConst):
                out.write(event_line(msg, ns_from_origin) + "\n")
            elif isinstance(msg, bt2._DiscardedEventsMessageConst):
                out.write(discarded_line(msg, "events") + "\n")
            elif isinstance(msg, bt2._DiscardedPacketsMessageConst):
                out.write(discarded_line(msg, "packets") + "\n")
    except bt2._Error as error:
        sys.stderr.write("read-trace.py: cannot read %s: %s\n" % (path, error))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
