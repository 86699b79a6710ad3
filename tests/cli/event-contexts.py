#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""event-contexts.py TRACE: for each cudatrace event class with at least one
event in TRACE, one line "NAME CONTEXTS": the members of its stream class's
event common context (the per-event contexts of its channel), sorted and
comma-separated, read by babeltrace2 from the trace's own metadata."""
import sys

import bt2

PREFIX = "cudatrace:"


def context_names(stream_class):
    context = stream_class.event_common_context_field_class
    if context is None:
        return "-"
    return ",".join(sorted(member.name for member in context.values())) or "-"


def main():
    seen = {}
    for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
        if type(msg) is not bt2._EventMessageConst:  # pylint: disable=protected-access
            continue
        name = msg.event.cls.name
        if not name.startswith(PREFIX):
            continue
        contexts = context_names(msg.event.stream.cls)
        seen.setdefault(name[len(PREFIX):], set()).add(contexts)
    for name in sorted(seen):
        print(name, " ".join(sorted(seen[name])))


main()
