#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-metadata.py TRACE_DIR - the metadata of a trace that libcudatrace
recorded against the event contract (contract/events.def), as TAP: every
event of the contract is in it (LTTng describes every event a session
enables, emitted or not), with every field the analyzers read, each of the
contract's type (integer width, signedness and display base; enumeration
labels and values; strings; arrays), and no field the contract lacks.

A field missing or renamed would otherwise read as 0 in a reader that
tolerates it; a type changed would be read with the wrong meaning.
Babeltrace 2's own Python bindings (bt2) read the metadata.
"""
import re
import sys

import bt2

import ct_contract

tests = 0
failures = 0


def ok(passed, description, details=()):
    global tests, failures
    tests += 1
    if not passed:
        failures += 1
    print("%sok %d - %s" % ("" if passed else "not ", tests, description))
    if not passed:
        for line in list(details)[:20]:
            print("#   %s" % line)


def event_classes(path):
    """{name: event class} of every stream class of the trace."""
    classes = {}
    iterator = bt2.TraceCollectionMessageIterator(path)
    for message in iterator:
        if type(message) is bt2._StreamBeginningMessageConst:
            for event_class in message.stream.cls.values():
                classes[event_class.name] = event_class
        elif type(message) is bt2._EventMessageConst:
            break
    return classes


def integer_problem(fc, signed, bits, base):
    want = bt2._SignedIntegerFieldClassConst if signed else bt2._UnsignedIntegerFieldClassConst
    if not isinstance(fc, want) or isinstance(fc, bt2._EnumerationFieldClassConst):
        return "is %s, not a%s integer" % (type(fc).__name__, " signed" if signed else "n unsigned")
    if fc.field_value_range != bits:
        return "has %d bits, not %d" % (fc.field_value_range, bits)
    shown = fc.preferred_display_base
    if base == 16 and shown != bt2.IntegerDisplayBase.HEXADECIMAL:
        return "is not shown in hexadecimal"
    if base == 10 and shown == bt2.IntegerDisplayBase.HEXADECIMAL:
        return "is shown in hexadecimal"
    return None


def enum_problem(fc, enum):
    if not isinstance(fc, bt2._UnsignedEnumerationFieldClassConst):
        return "is %s, not an unsigned enumeration" % type(fc).__name__
    if fc.field_value_range != 8:
        return "has %d bits, not 8" % fc.field_value_range
    mappings = {}
    for label, mapping in fc.items():
        for r in mapping.ranges:
            mappings[label] = (r.lower, r.upper)
    want = {label: (value, value) for value, label in ct_contract.ENUMS[enum].items()}
    if mappings != want:
        return "maps %s, the contract %s" % (sorted(mappings.items()), sorted(want.items()))
    return None


def field_problem(fc, kind, enum):
    """What is wrong with the trace's field class FC for the contract's KIND, or None."""
    if kind == "ENUM":
        return enum_problem(fc, enum)
    if kind in ("TEXT", "STRING"):
        return None if isinstance(fc, bt2._StringFieldClassConst) else \
            "is %s, not a string" % type(fc).__name__
    array = re.fullmatch(r"ARRAY_X(\d+)\[(\d+)\]", kind)
    if array:
        if not isinstance(fc, bt2._StaticArrayFieldClassConst):
            return "is %s, not a static array" % type(fc).__name__
        if fc.length != int(array.group(2)):
            return "has %d elements, not %s" % (fc.length, array.group(2))
        return integer_problem(fc.element_field_class, False, int(array.group(1)), 16)
    seq = re.fullmatch(r"SEQ_([XU])(\d+)\[(\d+)\]", kind)
    if seq:
        if not isinstance(fc, bt2._DynamicArrayFieldClassConst):
            return "is %s, not a dynamic array" % type(fc).__name__
        return integer_problem(fc.element_field_class, False, int(seq.group(2)),
                               16 if seq.group(1) == "X" else 10)
    signed = kind[0] == "I"
    return integer_problem(fc, signed, int(kind[1:]), 16 if kind[0] == "X" else 10)


def main():
    classes = event_classes(sys.argv[1])
    for event, (layout, _) in ct_contract.EVENTS.items():
        ec = classes.get("%s:%s" % (ct_contract.PROVIDER, event))
        if ec is None:
            ok(False, "%s is in the trace's metadata" % event)
            continue
        payload = ec.payload_field_class
        contract = ct_contract.LAYOUTS[layout]
        problems = []
        for field, kind, _, enum in contract:
            if field not in payload:
                problems.append("%s: not in the trace" % field)
                continue
            problem = field_problem(payload[field].field_class, kind, enum)
            if problem:
                problems.append("%s %s" % (field, problem))
        # a sequence's length is a field of its own
        allowed = {f for f, _, _, _ in contract}
        allowed |= {"_%s_length" % f for f, kind, _, _ in contract
                    if kind == "TEXT" or kind.startswith("SEQ_")}
        problems += ["%s: in the trace, not in the contract" % name
                     for name in payload if name not in allowed]
        ok(not problems, "%s: %d fields, each of the contract's type" % (event, len(contract)),
           problems)
    ours = [name for name in classes if name.startswith(ct_contract.PROVIDER + ":")]
    extra = [name for name in ours
             if name.split(":", 1)[1] not in ct_contract.EVENTS]
    ok(not extra, "the trace has no %s event the contract lacks" % ct_contract.PROVIDER, extra)
    print("1..%d" % tests)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
