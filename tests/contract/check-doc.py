#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-doc.py [EVENTS_MD CONTRACT_DUMP] - doc/events.md against the event
contract (contract/events.def), as TAP:

  - its enumeration table is the one `contract-dump --markdown` writes;
  - every event of the contract is documented, with exactly the contract's
    fields, each of the contract's type; the document describes no event
    or field the contract lacks;
  - tracer_info's activity_kinds lists the contract's activity kinds.

Field tables are those whose header is `| field | type | meaning |`, and
belong to the events named in the `###` heading above them; the NVTX
events share one `| event | fields |` table; "The same fields as `X`"
under a heading gives its events X's fields. A row may name several fields
(`start`, `end`); an empty type means "described with another event".

Without arguments (under make check), the document is found from
TESTS_SRCDIR and the generator from CUDATRACE_BUILDDIR.
"""
import os
import re
import subprocess
import sys

import ct_contract

# A contract type as doc/events.md writes it.
SCALAR = {"U8": "uint8", "U16": "uint16", "U32": "uint32", "U64": "uint64", "I32": "int32",
          "I64": "int64", "X32": "uint32", "X64": "uint64", "TEXT": "string",
          "STRING": "string"}

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


def doc_type(kind, enum):
    if kind == "ENUM":
        return "enum `%s` (uint8)" % enum
    array = re.fullmatch(r"ARRAY_X8\[(\d+)\]", kind)
    if array:
        return "uint8[%s]" % array.group(1)
    seq = re.fullmatch(r"SEQ_(X64|U64|U32|U16|U8)\[(\d+)\]", kind)
    if seq:
        return "%s[≤%s]" % (SCALAR[seq.group(1)], seq.group(2))
    return SCALAR[kind]


def contract_fields(event):
    layout = ct_contract.EVENTS[event][0]
    return {field: doc_type(kind, enum) for field, kind, _, enum in ct_contract.LAYOUTS[layout]}


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def names(cell):
    return re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cell)


def documented(text):
    """{event: {field: type or ''}}, and {event: other event} for "the same fields"."""
    fields, same = {}, {}
    heading_events = []
    table = None
    for line in text.splitlines():
        if line.startswith("#"):
            heading_events = [w for w in re.findall(r"[a-z_][a-z0-9_]*", line)
                              if w in ct_contract.EVENTS] if line.startswith("### ") else []
            table = None
            continue
        match = re.match(r"The same fields as `([a-z_]+)`", line)
        if match:
            for event in heading_events:
                same[event] = match.group(1)
            continue
        if not line.startswith("|"):
            table = None
            continue
        row = cells(line)
        if table is None:
            table = row[:2]
            continue
        if set(row[0]) <= set("-: "):
            continue
        if table == ["field", "type"]:
            for event in heading_events:
                for field in names(row[0]):
                    fields.setdefault(event, {})[field] = row[1]
        elif table == ["event", "fields"]:
            for event in names(row[0]):
                entry = fields.setdefault(event, {})
                for field, kind in re.findall(r"`([a-z_]+)` ([a-z0-9\[\]]+)", row[1]):
                    entry[field] = kind
    return fields, same


def main():
    if len(sys.argv) == 3:
        doc_path, dump = sys.argv[1], sys.argv[2]
    else:
        doc_path = os.path.join(os.environ["TESTS_SRCDIR"], "..", "doc", "events.md")
        dump = os.path.join(os.environ["CUDATRACE_BUILDDIR"], "tools", "contract-dump")
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()

    table = subprocess.run([dump, "--markdown"], check=True, capture_output=True,
                           text=True).stdout
    start = text.find("| enum | values |")
    doc_table = text[start:text.find("\n\n", start) + 1] if start >= 0 else ""
    ok(doc_table == table, "the enumeration table of doc/events.md is the contract's",
       ["expected (tools/contract-dump --markdown):"] + table.splitlines())

    fields, same = documented(text)
    for event in ct_contract.EVENTS:
        expected = contract_fields(event)
        got = fields.get(event)
        if got is None and event in same:
            got = fields.get(same[event])
        if got is None:
            ok(False, "%s is documented" % event)
            continue
        problems = ["%s: documented, not in the contract" % f for f in got if f not in expected]
        problems += ["%s: in the contract, not documented" % f for f in expected if f not in got]
        problems += ["%s: documented as %s, the contract says %s" % (f, got[f], expected[f])
                     for f in expected if f in got and got[f] and got[f] != expected[f]]
        ok(not problems, "%s: its fields and types are documented as the contract has them"
           % event, problems)
    kinds = ", ".join("%d %s" % (bit, name) for name, bit in ct_contract.ACTIVITY_KINDS.items())
    row = re.search(r"^\| `activity_kinds` \|[^|]*\| (.*) \|$", text, re.M)
    ok(row is not None and row.group(1).endswith(": " + kinds),
       "tracer_info's activity_kinds are documented as the contract's bits",
       ["expected the meaning to end with: " + kinds])
    extra = sorted(set(fields) - set(ct_contract.EVENTS))
    ok(not extra, "the document describes no event the contract lacks", extra)

    print("1..%d" % tests)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
