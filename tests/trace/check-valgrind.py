#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# check-valgrind.py - judge a memcheck XML report (valgrind --xml=yes) for
# one library and print TAP:
#
#   check-valgrind.py REPORT.xml LIBRARY_NAME
#
# An error is the library's own when a frame of its stack lies in
# LIBRARY_NAME (e.g. libcudatrace.so): then an invalid access, a use of
# uninitialised memory, a bad free or a definitely/indirectly lost block
# fails the test. Errors elsewhere (the simulator, the loader, lttng-ust)
# are listed as diagnostics only: they are not the library's to fix.

import sys
import xml.etree.ElementTree as ElementTree

LEAK_KINDS = ("Leak_DefinitelyLost", "Leak_IndirectlyLost")
IGNORED_KINDS = ("Leak_PossiblyLost", "Leak_StillReachable")
MAX_DIAGS = 10


def frames(error):
    for stack in error.iter("stack"):
        for frame in stack.iter("frame"):
            yield (frame.findtext("obj") or "?", frame.findtext("fn") or "?",
                   frame.findtext("file") or "", frame.findtext("line") or "")


def summary(error):
    what = error.findtext("what") or error.findtext("xwhat/text") or error.findtext("kind")
    where = ["%s (%s%s)" % (fn, obj.rsplit("/", 1)[-1],
                            ", %s:%s" % (path, line) if path else "")
             for obj, fn, path, line in list(frames(error))[:6]]
    return ["%s: %s" % (error.findtext("kind"), what)] + ["  at " + w for w in where]


def print_block(lines):
    for line in lines[:MAX_DIAGS * 7]:
        print("#   %s" % line)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: check-valgrind.py REPORT.xml LIBRARY_NAME\n")
        return 2
    report, library = argv[1], argv[2]
    try:
        root = ElementTree.parse(report).getroot()
    except (OSError, ElementTree.ParseError) as error:
        print("not ok 1 - memcheck wrote a readable report (%s)" % error)
        print("1..1")
        return 1
    own_errors, own_leaks, foreign = [], [], []
    for error in root.iter("error"):
        kind = error.findtext("kind") or ""
        if kind in IGNORED_KINDS:
            continue
        ours = any(library in obj for obj, _, _, _ in frames(error))
        if not ours:
            foreign.append(error)
        elif kind in LEAK_KINDS:
            own_leaks.append(error)
        else:
            own_errors.append(error)

    results = [
        (not own_errors, "no invalid access or other memcheck error in %s (%d)"
         % (library, len(own_errors)), own_errors),
        (not own_leaks, "no memory leaked by %s (%d blocks)" % (library, len(own_leaks)),
         own_leaks),
    ]
    for number, (passed, description, errors) in enumerate(results, 1):
        print("%sok %d - %s" % ("" if passed else "not ", number, description))
        for error in errors[:MAX_DIAGS]:
            print_block(summary(error))
    if foreign:
        print("# %d memcheck errors outside %s (not counted):" % (len(foreign), library))
        for error in foreign[:MAX_DIAGS]:
            print_block(summary(error))
    print("1..%d" % len(results))
    return 0 if all(passed for passed, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
