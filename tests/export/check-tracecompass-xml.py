#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# check-tracecompass-xml.py - the Trace Compass XML analyses name only
# events and fields that exist, in the metadata of real traces. TAP, one
# test per analysis:
#
#   /usr/bin/python3 check-tracecompass-xml.py --trace DIR [--trace DIR]... FILE.xml...
#
# The event classes are those of every trace given (a cudatrace trace
# recorded on the simulator, its GPU-time trace), read with babeltrace2.
# Each event name of an analysis (eventHandler eventName, transition and
# precondition event; '*' matches anything, as in Trace Compass) must match
# at least one event class, and each field it reads (type="eventField"
# values and <field name=...>, also through a <location>, a pattern's
# test or action) must be in every event class its handler or transition
# matches: a payload field as Trace Compass names it (LTTng's leading
# underscore dropped, as babeltrace2 drops it), or context._NAME for a
# common context field NAME.
#
# Needs Babeltrace 2's Python bindings (Debian: python3-bt2).

import argparse
import re
import sys
import xml.etree.ElementTree as ET

try:
    import bt2
except ImportError:
    print("not ok 1 - /usr/bin/python3 cannot import bt2 (Debian: python3-bt2)")
    print("1..1")
    sys.exit(1)


def event_classes(path):
    """{event name: set of field names as Trace Compass names them}."""
    classes = {}
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is not bt2._StreamBeginningMessageConst:
            continue
        sc = msg.stream.cls
        common = sc.event_common_context_field_class
        context = {"context._" + name for name in common} if common is not None else set()
        for ec in sc.values():
            payload = ec.payload_field_class
            fields = set(payload) if payload is not None else set()
            classes.setdefault(ec.name, set()).update(fields | context)
    return classes


def matcher(pattern):
    return re.compile(re.escape(pattern).replace(r"\*", ".*"))


def fields_of(element, locations):
    """The event fields ELEMENT reads, through the locations it names."""
    found = set()
    for node in element.iter():
        kind = node.get("type")
        if node.tag in ("stateAttribute", "stateValue") and kind == "eventField":
            found.add(node.get("value"))
        elif node.tag == "field":
            found.add(node.get("name"))
        elif node.tag == "stateAttribute" and kind == "location":
            found |= locations.get(node.get("value"), set())
    return found


def check(path, classes):
    """The problems of analysis PATH, and how many names it uses."""
    root = ET.parse(path).getroot()
    locations = {}
    for loc in root.iter("location"):
        locations[loc.get("id")] = fields_of(loc, {})
    tests = {t.get("id"): t for t in root.iter("test")}
    actions = {a.get("id"): a for a in root.iter("action")}
    uses = []  # (event pattern, fields read, where)
    for handler in root.iter("eventHandler"):
        uses.append((handler.get("eventName"), fields_of(handler, locations),
                     "eventHandler " + handler.get("eventName")))
    for node in list(root.iter("transition")) + list(root.iter("precondition")):
        event = node.get("event")
        if not event:
            continue
        read = set()
        for ids, table in ((node.get("cond"), tests), (node.get("action"), actions)):
            for name in (ids or "").split(":"):
                if name:
                    read |= fields_of(table[name], locations)
        uses.append((event, read, "%s %s" % (node.tag, event)))
    problems = []
    for pattern, read, where in uses:
        rx = matcher(pattern)
        matched = [name for name in classes if rx.fullmatch(name)]
        if not matched:
            problems.append("%s: no event is called so" % where)
        for name in matched:
            for field in sorted(read - classes[name]):
                problems.append("%s: %s has no field %s" % (where, name, field))
    return problems, len(uses)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trace", action="append", required=True)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    classes = {}
    for trace in args.trace:
        for name, fields in event_classes(trace).items():
            classes.setdefault(name, set()).update(fields)
    count = 0
    failures = 0
    count += 1
    print("%sok %d - the traces declare %d event classes"
          % ("" if classes else "not ", count, len(classes)))
    failures += not classes
    for path in args.files:
        problems, uses = check(path, classes)
        count += 1
        failures += bool(problems) or not uses
        print("%sok %d - %s names only events and fields the traces have (%d handlers "
              "and transitions)" % ("not " if problems or not uses else "", count,
                                    path.rsplit("/", 1)[-1], uses))
        for line in problems[:12]:
            print("#   %s" % line)
    print("1..%d" % count)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
