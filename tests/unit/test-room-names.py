#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No name defined by two rooms of the tree.

The rooms: include/rnic/ (the hardware interface and uverbs ABI, shared by
design: its names are everybody's), hw-rnic/engine/ (the engine),
hw-rnic/ (the QEMU adapter), guest-driver/, provider/, tests/, and any
other top-level folder holding C.  A room's names are the ones one of its
files can show to another file: everything its headers define (struct,
union and enum tags, typedefs, functions including static inline ones and
prototypes, variables, enumerators, macros, include guards) and the non-static
functions and variables of its .c files.  A static function, a static
variable and a type or macro defined inside a .c file stay in that file.

A name in that sense defined by two rooms fails the check, unless
include/rnic/ defines it or the two rooms are an allowed pair (ALLOWED):
the guest driver and the provider are the kernel and user halves of one
verbs driver, never in one program, named after the verbs they implement
as rdma-core's providers and their kernel drivers are (mlx5_create_qp in
both).  `main` is every program's own.

Definitions come from Universal Ctags (Debian: universal-ctags, installed
by ./rnic setup); include guards, which ctags does not report, from the
header's first #ifndef/#define pair.  When given the engine's static
library, every global symbol `nm` finds in it must also be one ctags
found in hw-rnic/engine/, so a definition ctags cannot parse fails the
check instead of passing unseen.

usage: test-room-names.py SRC_ROOT [ENGINE_STATIC_LIB]
A self-check first runs the rules on a small tree with known collisions.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SHARED = 'include/rnic'
ALLOWED = {frozenset(('guest-driver', 'provider'))}
EVERY_PROGRAM = {'main'}

# Kernel and QEMU annotations ctags would take for a name (ctags -I).
IGNORE = ('__init,__exit,__always_inline,__maybe_unused,__must_check,'
          '__cold,__iomem,__user,__rcu,__packed,__aligned+,__printf+,'
          'G_GNUC_PRINTF+,G_GNUC_UNUSED,G_GNUC_WARN_UNUSED_RESULT,'
          'QEMU_PACKED,QEMU_NORETURN,G_NORETURN')

GUARD = re.compile(r'^\s*#\s*ifndef\s+(\w+)\s*\n\s*#\s*define\s+(\w+)\b',
                   re.M)


def room_of(path):
    """The room of a path relative to the source root."""
    if path.startswith(SHARED + '/'):
        return SHARED
    if path.startswith('hw-rnic/engine/'):
        return 'hw-rnic/engine'
    return path.split('/', 1)[0]


def c_files(root):
    """Every .c and .h of the tree: git's files (tracked or not ignored)
    when root is a git tree, else every one outside build* and dot dirs."""
    res = subprocess.run(['git', '-C', root, 'ls-files', '-z', '--cached',
                          '--others', '--exclude-standard', '--', '*.c',
                          '*.h'], capture_output=True, check=False)
    if res.returncode == 0:
        return sorted({p for p in res.stdout.decode().split('\0') if p and
                       os.path.isfile(os.path.join(root, p))})
    out = []
    for top, dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        dirs[:] = sorted(d for d in dirs if not d.startswith('.') and
                         not (rel == '.' and d.startswith('build')))
        for name in sorted(files):
            if name.endswith(('.c', '.h')):
                out.append(os.path.normpath(os.path.join(rel, name)))
    return out


def ctags_tags(root, files):
    cmd = ['ctags', '--output-format=json', '--languages=C',
           '--langmap=C:.c.h', '--kinds-C=dfgpstuve', '--fields=+nKfz',
           '-I', IGNORE, '-f', '-', '-L', '-']
    res = subprocess.run(cmd, cwd=root, input='\n'.join(files) + '\n',
                         capture_output=True, text=True, check=True)
    for line in res.stdout.splitlines():
        tag = json.loads(line)
        if tag.get('_type') == 'tag':
            yield tag


def definitions(root):
    """[(name, room, path, line, kind)] of every name a room shows."""
    files = c_files(root)
    defs = []
    for tag in ctags_tags(root, files):
        path, kind = tag['path'], tag['kind']
        if not path.endswith('.h') and (
                tag.get('file') or kind not in ('function', 'variable')):
            continue
        defs.append((tag['name'], room_of(path), path, tag['line'], kind))
    for path in files:
        if not path.endswith('.h'):
            continue
        with open(os.path.join(root, path), encoding='utf-8') as f:
            text = f.read()
        m = GUARD.search(text)
        if m and m.group(1) == m.group(2):
            line = text.count('\n', 0, m.start(1)) + 1
            defs.append((m.group(1), room_of(path), path, line, 'guard'))
    return defs


def collisions(defs):
    """{name: {room: [(path, line, kind)]}} for names two rooms define."""
    by_name = {}
    for name, room, path, line, kind in defs:
        by_name.setdefault(name, {}).setdefault(room, []).append(
            (path, line, kind))
    found, allowed = {}, {}
    for name, rooms in sorted(by_name.items()):
        if SHARED in rooms or name in EVERY_PROGRAM or len(rooms) < 2:
            continue
        if frozenset(rooms) in ALLOWED:
            allowed[name] = rooms
        else:
            found[name] = rooms
    return found, allowed


def nm_missed(root, lib, defs):
    """Global symbols of the engine library that ctags did not find."""
    seen = {d[0] for d in defs if d[1] == 'hw-rnic/engine' and
            d[4] in ('function', 'variable')}
    res = subprocess.run(['nm', '-A', '--defined-only', lib],
                         capture_output=True, text=True, check=True)
    missed, checked = set(), 0
    for line in res.stdout.splitlines():
        where, _, rest = line.rpartition(':')
        parts = rest.split()
        if len(parts) != 3 or parts[1] not in 'TDBRGSV':
            continue
        # meson names a member core_eq.c.o for hw-rnic/engine/core/eq.c;
        # members from outside the tree (QEMU's crc32c.c) are not ours
        member = os.path.basename(where.rpartition(':')[2])
        src = member[:-len('.o')] if member.endswith('.o') else member
        folder, _, base = src.partition('_')
        if not os.path.isfile(os.path.join(root, 'hw-rnic/engine', folder,
                                           base)):
            continue
        checked += 1
        if parts[2] not in seen:
            missed.add('%s (%s)' % (parts[2], member))
    if not checked:
        missed.add('nothing: no global symbol of hw-rnic/engine/ in ' + lib)
    return checked, sorted(missed)


def report(found):
    lines = []
    for name, rooms in found.items():
        where = '; '.join('%s: %s' % (room, ', '.join(
            '%s %s:%d' % (kind, path, line) for path, line, kind in
            sorted(places))) for room, places in sorted(rooms.items()))
        lines.append('%s  [%s]' % (name, where))
    return lines


def self_check():
    """The rules must report exactly the planted collisions."""
    tree = {
        'include/rnic/hw.h': '#ifndef HW_H\n#define HW_H\n'
                             'struct demo_shared { int a; };\n#endif\n',
        'hw-rnic/engine/core/dev.h':
            '#ifndef DEV_H\n#define DEV_H\nstruct demo_qp { int a; };\n'
            '#define DEMO_DEPTH 4\nenum { DEMO_ONE = 1 };\n'
            'static inline int demo_depth(void) { return 4; }\n#endif\n',
        'hw-rnic/engine/core/eq.c':
            'int demo_eq_create(int n) { return n; }\n'
            'static int demo_local(void) { return 0; }\n'
            'struct demo_private { int a; };\n#define DEMO_TMP 1\n'
            'unsigned demo_eq_count;\n'
            'int main(void) { return demo_local(); }\n',
        'guest-driver/rnic.h':
            '#ifndef DEV_H\n#define DEV_H\nstruct demo_qp { long b; };\n'
            '#define DEMO_DEPTH 8\nenum { DEMO_ONE = 1 };\n'
            'struct demo_shared { int a; };\nint demo_create_qp(void);\n'
            'int demo_depth(void);\n#endif\n',
        'guest-driver/eq.c':
            'static int __init demo_eq_create(int n) { return n; }\n'
            'int __cold demo_eq_count(void) { return 0; }\n'
            'static int demo_local(void) { return 0; }\n'
            'struct demo_private { long b; };\n#define DEMO_TMP 2\n'
            'int demo_create_qp(void) { return 0; }\n'
            'int main(void) { return demo_local(); }\n',
        'provider/qp.c': 'int demo_create_qp(void) { return 0; }\n',
    }
    want = {'DEV_H', 'DEMO_DEPTH', 'DEMO_ONE', 'demo_depth', 'demo_eq_count',
            'demo_qp'}
    with tempfile.TemporaryDirectory() as tmp:
        for path, text in tree.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, path)),
                        exist_ok=True)
            with open(os.path.join(tmp, path), 'w') as f:
                f.write(text)
        found, allowed = collisions(definitions(tmp))
    ok = set(found) == want and set(allowed) == {'demo_create_qp'}
    if not ok:
        print('self-check: the rules did not report what they should:')
        print('  want: %s, allowed demo_create_qp' % ' '.join(sorted(want)))
        print('  got:  %s, allowed %s' % (' '.join(sorted(found)),
                                         ' '.join(sorted(allowed))))
    return ok


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    if not shutil.which('ctags') or b'Universal Ctags' not in \
            subprocess.run(['ctags', '--version'], capture_output=True).stdout:
        print('no Universal Ctags: install universal-ctags (./rnic setup '
              'does, scripts/setup/host-packages.sh)')
        return 1
    if not self_check():
        return 1
    root = sys.argv[1]
    defs = definitions(root)
    rooms = sorted({d[1] for d in defs})
    print('%d definitions in %d rooms: %s' % (
        len(defs), len(rooms), ', '.join(
            '%s %d' % (r, sum(1 for d in defs if d[1] == r)) for r in rooms)))
    fail = False
    if len(sys.argv) == 3:
        checked, missed = nm_missed(root, sys.argv[2], defs)
        print('nm: %d global symbols in %s' % (checked, sys.argv[2]))
        for m in missed:
            print('FAIL: nm finds %s in the engine, ctags does not' % m)
        fail = bool(missed)
    found, allowed = collisions(defs)
    if allowed:
        print('%d names shared by an allowed pair (%s)' % (
            len(allowed), '; '.join(' and '.join(sorted(p))
                                    for p in ALLOWED)))
    for line in report(found):
        print('FAIL: ' + line)
    if found:
        print('%d names defined in more than one room' % len(found))
        fail = True
    if not fail:
        print('ok: no name defined in two rooms (include/rnic/ aside)')
    return 1 if fail else 0


if __name__ == '__main__':
    sys.exit(main())
