#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Find sanitizer reports (AddressSanitizer, LeakSanitizer, UndefinedBehaviorSanitizer)
in QEMU's logs: the lab's guestN.log (console and QEMU's stderr), a qtest's QEMU
log, or the files a sanitizer writes with log_path=DIR/NAME (NAME.PID).

  sanitizer_reports.py FILE|DIR...   exit 1 and print each report found, 0 if none

lab.py and tests/asan/qtest-asan.py use reports() and OPTIONS."""
import os
import re
import sys

# The first line of a report. ASan/LSan: "==PID==ERROR: AddressSanitizer: ...";
# UBSan: "path/file.c:LINE:COL: runtime error: ..." (with or without halt_on_error).
START = re.compile(rb'==\d+==ERROR: (Address|Leak|UndefinedBehavior|Memory|Thread)Sanitizer'
                   rb'|^\S+:\d+:\d+: runtime error: '
                   rb'|^SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer', re.M)
# The options every sanitized QEMU of the tests runs with: abort at the first
# report (an exit status of 1 would read as the guest's rc 0 to lab.py's
# isa-debug-exit decoding); leaks off (QEMU does not free its device state at
# exit: LeakSanitizer would report QEMU's own allocations, docs/sanitizers.md).
OPTIONS = {
    'ASAN_OPTIONS': 'halt_on_error=1:abort_on_error=1:detect_leaks=0',
    'UBSAN_OPTIONS': 'halt_on_error=1:abort_on_error=1:print_stacktrace=1',
}


def options(environ, log_dir=None):
    """ASAN_OPTIONS and UBSAN_OPTIONS for a sanitized QEMU: OPTIONS, then what
    environ already says (a user's or meson's settings win), then with log_dir
    log_path=LOG_DIR/asan (or ubsan): the runtime writes LOG_DIR/asan.PID."""
    out = {}
    for k, v in OPTIONS.items():
        parts = [v] + ([environ[k]] if environ.get(k) else [])
        if log_dir:
            parts.append('log_path=' + os.path.join(log_dir, k.split('_')[0].lower()))
        out[k] = ':'.join(parts)
    return out


# How much of a report to show.
CONTEXT = 40


def scan_file(path):
    """The reports in one file, each as its first lines (text)."""
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError:
        return []
    found, last_end = [], -1
    for m in START.finditer(data):
        if m.start() < last_end:
            continue        # a SUMMARY line inside a report already shown
        lines = data[m.start():].split(b'\n')[:CONTEXT]
        last_end = m.start() + sum(len(l) + 1 for l in lines)
        found.append('%s:\n%s' % (path, b'\n'.join(lines).decode('utf-8', 'replace')))
    return found


def reports(paths):
    """Every report in PATHS (files, or directories: every file directly in them)."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                f = os.path.join(p, name)
                if os.path.isfile(f):
                    out += scan_file(f)
        else:
            out += scan_file(p)
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    found = reports(sys.argv[1:])
    for r in found:
        print('sanitizer report in ' + r)
    print('sanitizer-reports: %d report(s) in %s' % (len(found), ' '.join(sys.argv[1:])))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
