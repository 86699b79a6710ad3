#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-layers.py SRCDIR [OBJDIR] - the analyzers' layers hold (TAP).

analyzers/README.md draws the layers: each folder uses only itself and
the folders below it. Checked here from the sources and the objects:

  - every #include of an analyzers header names one of its own folder
    or of a folder below (the order is LAYERS);
  - no folder holds more than 25 C files;
  - with OBJDIR (the build's analyzers/, its libtool objects in each
    folder's .libs or beside it), no cycle among the objects: an object
    depends on another when it uses a symbol the other defines (nm).
"""
import os
import re
import subprocess
import sys

LAYERS = ['common', 'model', 'read', 'analyses', 'pass', 'findings', 'report', 'export',
          'registry']
MAX_C_FILES = 25
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

results = []


def ok(cond, what, detail=''):
    results.append((bool(cond), what, detail))


def sources(top):
    for layer in LAYERS:
        folder = os.path.join(top, layer)
        for name in sorted(os.listdir(folder)):
            if name.endswith(('.c', '.h')):
                yield layer, name, os.path.join(folder, name)


def check_includes(top):
    headers = {}
    for layer, name, _ in sources(top):
        if name.endswith('.h'):
            headers.setdefault(name, []).append(layer)
    bad = []
    for layer, name, path in sources(top):
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            folder, _, base = inc.rpartition('/')
            if not folder:
                # the includer's own folder, or not an analyzers header
                if base in headers and layer not in headers[base]:
                    bad.append('%s/%s includes "%s", which is not in %s/' %
                               (layer, name, inc, layer))
                continue
            if folder not in LAYERS:
                continue
            if LAYERS.index(folder) > LAYERS.index(layer):
                bad.append('%s/%s includes "%s", a layer above it' % (layer, name, inc))
    ok(not bad, 'every analyzers include names its own layer or one below', '\n'.join(bad))


def check_sizes(top):
    big = []
    for layer in LAYERS:
        count = sum(1 for n in os.listdir(os.path.join(top, layer)) if n.endswith('.c'))
        if count > MAX_C_FILES:
            big.append('%s/ holds %d C files' % (layer, count))
    ok(not big, 'no analyzers folder holds more than %d C files' % MAX_C_FILES, '\n'.join(big))


def objects(objdir):
    """The library's objects, in each layer's folder (libtool's PIC objects
    are in its .libs; the non-PIC ones beside them): nothing else, such as
    the objects a build folder kept from before the folders were made."""
    for layer in LAYERS:
        libs = os.path.join(objdir, layer, '.libs')
        for n in sorted(os.listdir(libs)) if os.path.isdir(libs) else []:
            if n.endswith('.o'):
                yield os.path.join(libs, n)


def symbols(path):
    out = subprocess.run(['nm', '--defined-only', '-g', path], capture_output=True, text=True,
                         check=True).stdout
    defined = {line.split()[-1] for line in out.splitlines() if line.strip()}
    out = subprocess.run(['nm', '--undefined-only', path], capture_output=True, text=True,
                         check=True).stdout
    used = {line.split()[-1] for line in out.splitlines() if line.strip()}
    return defined, used


def cycles(graph):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return found


def check_cycles(objdir):
    objs = {}
    for path in objects(objdir):
        name = os.path.basename(path).replace('libanalyzers_la-', '')
        objs[os.path.relpath(path, objdir).replace('.libs/', '').replace(
            'libanalyzers_la-', '')] = symbols(path)
    ok(len(objs) > 40, 'the analyzers objects are found in %s' % objdir, '%d found' % len(objs))
    owner = {}
    for name, (defined, _) in objs.items():
        for sym in defined:
            owner[sym] = name
    graph = {name: sorted({owner[s] for s in used if s in owner and owner[s] != name})
             for name, (_, used) in objs.items()}
    found = cycles(graph)
    ok(not found, 'no dependency cycle among the analyzers objects',
       '\n'.join(' <-> '.join(c) for c in found))


def main():
    top = os.path.join(sys.argv[1], 'analyzers')
    check_includes(top)
    check_sizes(top)
    if len(sys.argv) > 2:
        check_cycles(sys.argv[2])
    print('1..%d' % len(results))
    for i, (good, what, detail) in enumerate(results, 1):
        print('%s %d - %s' % ('ok' if good else 'not ok', i, what))
        for line in detail.splitlines():
            if not good:
                print('# ' + line)


main()
