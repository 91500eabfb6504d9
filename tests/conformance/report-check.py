#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The conformance report (report.py) is sound: the JUnit XML is well-formed,
and it and the printed table say the same, case by case.

A synthetic report with passes, failures and text XML must escape (<, &, quotes,
a newline, non-ASCII) goes through table() and write_junit(); the table is read
back by columns and the XML by xml.etree, and both must give every case's name,
detail and failure reason. Also the other way: a tampered XML, an XML that is not
well-formed and a table row that lost its case must each be reported.

  report-check.py [RUN_DIR ...]    # also check real runs' table.txt against junit.xml
"""
import os
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

CASES = [
    ('vm1.kit-installed', 'vm1-bookworm', None),
    ('vm2.rping-client', 'vm2-trixie', 'the guest says FAIL'),
    ('pcap-check', 'guest 1 wire, 14 iWARP connections', '2 malformed packets; 1 bad MPA CRCs (frames 7,9)'),
    ('cell.rev2-crc', 'rev 2 crc on mk off/off first Send', None),
    ('cell.rtr-any', 'rev 2 crc on mk off/off rtr write first Write',
     'capture: first is <None> & "Send", want \'Write\'\nsecond line'),
    ('cell.ünïcode', 'détail → ok', 'raison: ≠'),
    ('cell.empty-detail', '', None),
]
fails = 0


def expect(cond, what):
    global fails
    print('%s: %s' % ('ok' if cond else 'FAIL', what))
    fails += not cond


tmp = tempfile.mkdtemp()
try:
    text = report.table('synthetic report', CASES)
    print(text, end='')
    junit = os.path.join(tmp, 'junit.xml')
    report.write_junit(junit, 'synthetic', 'report-check', CASES, 1.5)
    root = ET.parse(junit).getroot()  # well-formed, or this raises
    expect(root.tag == 'testsuite' and root.get('tests') == str(len(CASES)) and root.get('failures') == '4',
           'testsuite element with tests=%d failures=4' % len(CASES))
    t, j = report.parse_table(text), report.parse_junit(junit)
    flat = {report.one_line([c])[0][0]: report.one_line([c])[0][1:] for c in CASES}
    expect(t == flat, 'the table gives back every case (name, detail, reason)')
    expect(j == flat, 'the XML gives back every case (name, detail, reason)')
    expect(report.compare(text, junit) == [], 'compare() finds no difference')
    f = root.find("testcase[@name='cell.rtr-any']/failure")
    expect(f is not None and '<None> & "Send"' in f.get('message'), 'XML special characters survive')

    # The comparison can fail.
    bad = os.path.join(tmp, 'bad.xml')
    with open(junit, encoding='utf-8') as f:
        xml = f.read()
    with open(bad, 'w', encoding='utf-8') as f:
        f.write(xml.replace('raison: ≠', 'raison: =', 1))
    expect(any('cell.ünïcode' in d for d in report.compare(text, bad)), 'a changed failure reason is found')
    with open(bad, 'w', encoding='utf-8') as f:
        f.write(xml[:len(xml) // 2])
    expect(report.compare(text, bad) != [], 'XML that is not well-formed is found')
    short = '\n'.join(l for l in text.split('\n') if not l.startswith('cell.rev2-crc'))
    expect(any('only in the XML' in d for d in report.compare(short, junit)), 'a row missing from the table is found')
finally:
    shutil.rmtree(tmp)

for run in sys.argv[1:]:
    with open(os.path.join(run, 'table.txt'), encoding='utf-8') as f:
        d = report.compare(f.read(), os.path.join(run, 'junit.xml'))
    expect(d == [], '%s: table.txt and junit.xml agree%s' % (run, ''.join('\n  ' + x for x in d)))
print('%d failed' % fails)
sys.exit(1 if fails else 0)
