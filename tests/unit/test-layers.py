#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The engine's layers, checked over its #include lines.

hw-rnic/engine/ holds one folder per layer, lowest first in LAYERS.  A file
includes a header of its own folder by bare name ("dev.h") and one of a lower
folder with the folder ("core/dev.h"); it never includes from a higher folder,
the folders' include graph has no cycle, and the engine includes no QEMU
header (it is built outside QEMU too).  The hardware interface, "rnic/hw.h"
in include/, is below every layer.

usage: test-layers.py ENGINE_DIR INCLUDE_DIR
A self-check first runs the same rules on a small tree with one upward
include and one QEMU include, and fails unless both are reported.
"""
import os
import re
import sys
import tempfile

# Lowest first; hw-rnic/engine/meson.build says what each one holds.
LAYERS = ['wire', 'tcp', 'core', 'rdma', 'iwarp', 'device', 'state']
RANK = {name: i for i, name in enumerate(LAYERS)}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# Top-level folders of QEMU's include/ (and its glib): never in the engine.
QEMU_DIRS = ('qemu/', 'qapi/', 'qom/', 'hw/', 'system/', 'sysemu/', 'exec/',
             'block/', 'migration/', 'net/', 'chardev/', 'io/', 'crypto/',
             'ui/', 'trace/', 'standard-headers/', 'glib')


def check(engine, incdir):
    """Return (errors, edges): edges[(from, to)] = number of includes."""
    errors = []
    edges = {}
    for entry in sorted(os.listdir(engine)):
        path = os.path.join(engine, entry)
        if os.path.isdir(path):
            if entry not in RANK:
                errors.append('%s/: a folder that is not a layer (LAYERS in %s)'
                              % (entry, os.path.basename(__file__)))
        elif entry.endswith(('.c', '.h')):
            errors.append('%s: engine source outside every layer folder' % entry)
    for layer in LAYERS:
        folder = os.path.join(engine, layer)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith(('.c', '.h')):
                continue
            rel = '%s/%s' % (layer, name)
            with open(os.path.join(folder, name), encoding='utf-8') as f:
                lines = f.read().splitlines()
            for lineno, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                where = '%s:%d: #include %s%s%s' % (
                    rel, lineno, m.group(1), m.group(2),
                    '"' if m.group(1) == '"' else '>')
                err = one_include(engine, incdir, layer, m.group(1),
                                  m.group(2), edges)
                if err:
                    errors.append('%s: %s' % (where, err))
    errors += cycles(edges)
    return errors, edges


def one_include(engine, incdir, layer, kind, target, edges):
    if target.startswith(QEMU_DIRS):
        return 'a QEMU header: the engine is built outside QEMU too'
    if kind == '<':
        return None
    if '/' not in target:
        if not os.path.isfile(os.path.join(engine, layer, target)):
            return 'no such header in %s/ (a lower layer\'s header ' \
                   'needs its folder)' % layer
        return None
    top, rest = target.split('/', 1)
    if top == 'rnic':
        if not os.path.isfile(os.path.join(incdir, target)):
            return 'no such hardware-interface header in include/'
        return None
    if top not in RANK:
        return 'neither an engine layer nor include/rnic/'
    if not os.path.isfile(os.path.join(engine, target)):
        return 'no such header'
    if top == layer:
        return 'a header of its own folder: include it by bare name'
    edges[(layer, top)] = edges.get((layer, top), 0) + 1
    if RANK[top] > RANK[layer]:
        return 'upward: %s/ is above %s/ (order: %s)' % (
            top, layer, ' < '.join(LAYERS))
    return None


def cycles(edges):
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    found = []
    state = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                loop = stack[stack.index(nxt):] + [nxt]
                found.append('folder cycle: ' + ' -> '.join(loop))
            elif not state.get(nxt):
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if not state.get(node):
            visit(node, [node])
    return found


def self_check():
    """The rules must catch an upward include and a QEMU header."""
    with tempfile.TemporaryDirectory() as tmp:
        eng = os.path.join(tmp, 'engine')
        for layer, name, text in [
                ('wire', 'a.h', '#include "core/b.h"\n'),
                ('core', 'b.h', '#include <stdint.h>\n#include "wire/a.h"\n'),
                ('core', 'c.c', '#include "qemu/osdep.h"\n#include "b.h"\n')]:
            os.makedirs(os.path.join(eng, layer), exist_ok=True)
            with open(os.path.join(eng, layer, name), 'w') as f:
                f.write(text)
        errors, _ = check(eng, tmp)
    want = ['wire/a.h:1: #include "core/b.h": upward',
            'core/c.c:1: #include "qemu/osdep.h": a QEMU header',
            'folder cycle: core -> wire -> core']
    missing = [w for w in want if not any(e.startswith(w) for e in errors)]
    if missing or len(errors) != len(want):
        print('self-check: the rules did not report what they should:')
        for e in errors:
            print('  got: ' + e)
        for w in missing:
            print('  missing: ' + w)
        return False
    return True


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    if not self_check():
        return 1
    errors, edges = check(sys.argv[1], sys.argv[2])
    for (a, b), n in sorted(edges.items(), key=lambda e: (RANK[e[0][0]],
                                                          RANK[e[0][1]])):
        print('%s/ -> %s/: %d include%s' % (a, b, n, '' if n == 1 else 's'))
    for e in errors:
        print('FAIL: ' + e)
    if errors:
        return 1
    print('ok: %s, no folder cycle, no QEMU header' % ' < '.join(LAYERS))
    return 0


if __name__ == '__main__':
    sys.exit(main())
