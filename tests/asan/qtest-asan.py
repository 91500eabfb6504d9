#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Run one qtest program on the sanitized QEMU (scripts/setup/qemu-asan.sh).

  qtest-asan.py QEMU PROGRAM [ARGS...]

RNIC_QEMU names QEMU for the program; ASAN_OPTIONS and UBSAN_OPTIONS make every
QEMU it starts abort at its first report and write the report to a directory of
this run's own (log_path), which is checked afterwards: any report fails the
test, whatever the program's own verdict. Exit 77 (skip) without that QEMU."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sanitizer_reports  # noqa: E402



def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    qemu, prog = sys.argv[1], sys.argv[2:]
    if not os.access(qemu, os.X_OK):
        print('SKIP: no sanitized QEMU at %s (run scripts/setup/qemu-asan.sh)' % qemu)
        return 77
    logdir = tempfile.mkdtemp(prefix='rnic-asan-qtest-')
    env = dict(os.environ, RNIC_QEMU=qemu)
    env.update(sanitizer_reports.options(os.environ, logdir))
    print('qtest-asan: %s on %s, sanitizer logs in %s' % (' '.join(prog), qemu, logdir), flush=True)
    rc = subprocess.call(prog, env=env)
    found = sanitizer_reports.reports([logdir])
    for r in found:
        print('qtest-asan: sanitizer report in ' + r)
    print('qtest-asan: %s exited %d; %d sanitizer report(s)' % (os.path.basename(prog[0]), rc, len(found)))
    if found:
        return 1
    shutil.rmtree(logdir, ignore_errors=True)
    return rc


if __name__ == '__main__':
    sys.exit(main())
