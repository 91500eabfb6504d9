#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The metadata workload of ulp-pair.sh, in one process (a fork per file
# under TCG would take minutes):
#   ulp-tree.py make ROOT [D]  D x 100 files (default D=10: 1000) in D x 10
#                           nested directories of 10 files, each file then
#                           renamed, every directory of the first level
#                           renamed, every file stat()ed against its size
#   ulp-tree.py list ROOT   "entries=N sha256=X" over every path, type, size
#                           and content below ROOT (sorted): the client and
#                           the server must print the same line
#   ulp-tree.py empty ROOT  removes everything below ROOT (client side)
import hashlib
import os
import shutil
import sys


def content(i):
    """File i's bytes: its number and a length that varies (0 .. 4999 more)."""
    head = b'rnic-ulp-file-%d\n' % i
    return head + bytes((i * 7 + k) & 0xff for k in range((i * 37) % 5000))


def make(root, dirs='10'):
    dirs = int(dirs)
    os.makedirs(root)
    i = 0
    for d in range(dirs):
        for s in range(10):
            sub = os.path.join(root, 'd%d' % d, 's%d' % s)
            os.makedirs(sub)
            for f in range(10):
                with open(os.path.join(sub, 'f%d' % f), 'wb') as fh:
                    fh.write(content(i))
                i += 1
    i = 0
    for d in range(dirs):
        for s in range(10):
            sub = os.path.join(root, 'd%d' % d, 's%d' % s)
            for f in range(10):
                os.rename(os.path.join(sub, 'f%d' % f), os.path.join(sub, 'renamed-%d' % i))
                i += 1
    for d in range(dirs):
        os.rename(os.path.join(root, 'd%d' % d), os.path.join(root, 'dir-%d' % d))
    i = 0
    for d in range(dirs):
        for s in range(10):
            for f in range(10):
                st = os.stat(os.path.join(root, 'dir-%d' % d, 's%d' % s, 'renamed-%d' % i))
                if st.st_size != len(content(i)):
                    sys.exit('stat: file %d has %d bytes, want %d' % (i, st.st_size, len(content(i))))
                i += 1
    print('made %d files in %s' % (i, root))


def listing(root):
    h = hashlib.sha256()
    n = 0
    for top, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(dirs):
            h.update(b'd %s\n' % os.path.relpath(os.path.join(top, name), root).encode())
            n += 1
        for name in sorted(files):
            p = os.path.join(top, name)
            with open(p, 'rb') as fh:
                data = fh.read()
            h.update(b'f %s %d %s\n' % (os.path.relpath(p, root).encode(), len(data),
                                        hashlib.sha256(data).hexdigest().encode()))
            n += 1
    print('entries=%d sha256=%s' % (n, h.hexdigest()))


def empty(root):
    for name in os.listdir(root):
        p = os.path.join(root, name)
        if os.path.isdir(p):
            shutil.rmtree(p)
        else:
            os.unlink(p)


if __name__ == '__main__':
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in ('make', 'list', 'empty') or \
            (len(sys.argv) == 4 and sys.argv[1] != 'make'):
        sys.exit('usage: ulp-tree.py make ROOT [DIRS] | list ROOT | empty ROOT')
    {'make': make, 'list': listing, 'empty': empty}[sys.argv[1]](*sys.argv[2:])
