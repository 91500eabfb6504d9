# SPDX-License-Identifier: GPL-2.0-or-later
"""A conformance run's report: the table it prints and the JUnit XML beside it.

A run is a list of cases (name, detail, failure): failure None for a pass, else
its reasons. table() gives the text the runner prints (and saves as table.txt),
write_junit() the XML (one testcase per case, the reasons as the failure's
message and text), and compare() reads both back and says where they differ:
the runners call it on their own output, and report-check.py in the default run
on a synthetic report that holds XML's special characters.
"""
import xml.etree.ElementTree as ET

PASS = 'PASS'


def one_line(cases):
    """Cases with their text on one line each (a row of the table)."""
    def flat(s):
        return s if s is None else ' '.join(s.split())
    return [(flat(n), flat(d) or '', flat(f)) for n, d, f in cases]


def verdict(failure):
    return PASS if failure is None else 'FAIL: ' + failure


def table(title, cases):
    """The table: a title line, a header, one row per case (name, detail, verdict)."""
    cases = one_line(cases)
    w = max([len('check')] + [len(c[0]) for c in cases])
    dw = max([len('detail')] + [len(c[1]) for c in cases])
    lines = [title, '%-*s  %-*s  %s' % (w, 'check', dw, 'detail', 'verdict')]
    lines += ['%-*s  %-*s  %s' % (w, n, dw, d, verdict(f)) for n, d, f in cases]
    failed = sum(1 for c in cases if c[2] is not None)
    lines.append('%d passed, %d failed' % (len(cases) - failed, failed))
    return '\n'.join(lines) + '\n'


def write_junit(path, suite, classname, cases, seconds):
    """JUnit XML (the testsuite element as Jenkins, GitLab and others read it)."""
    cases = one_line(cases)
    root = ET.Element('testsuite', name=suite, tests=str(len(cases)),
                      failures=str(sum(1 for c in cases if c[2] is not None)),
                      errors='0', skipped='0', time='%.1f' % seconds)
    for name, detail, failure in cases:
        case = ET.SubElement(root, 'testcase', classname=classname, name=name)
        if failure is not None:
            ET.SubElement(case, 'failure', message=failure).text = failure
        if detail:
            ET.SubElement(case, 'system-out').text = detail
    tree = ET.ElementTree(root)
    ET.indent(tree)
    tree.write(path, encoding='utf-8', xml_declaration=True)


def parse_table(text):
    """{name: (detail, failure)} from table()'s text, read by column offsets."""
    lines = text.rstrip('\n').split('\n')
    head = lines[1]
    d0, v0 = head.index('detail'), head.index('verdict')
    rows = {}
    for line in lines[2:-1]:
        name, detail, v = line[:d0].rstrip(), line[d0:v0].rstrip(), line[v0:]
        if v != PASS and not v.startswith('FAIL: '):
            raise ValueError('table row without a verdict: %r' % line)
        rows[name] = (detail, None if v == PASS else v[len('FAIL: '):])
    return rows


def parse_junit(path):
    """{name: (detail, failure)} from the XML; raises on XML that is not well-formed."""
    root = ET.parse(path).getroot()
    if root.tag != 'testsuite':
        raise ValueError('root element is %s, not testsuite' % root.tag)
    cases = {}
    for tc in root.iter('testcase'):
        f = tc.find('failure')
        out = tc.find('system-out')
        cases[tc.get('name')] = ((out.text or '') if out is not None else '',
                                 None if f is None else f.get('message'))
    n, failed = int(root.get('tests')), int(root.get('failures'))
    if n != len(cases) or failed != sum(1 for c in cases.values() if c[1] is not None):
        raise ValueError('testsuite says tests=%d failures=%d, its testcases differ' % (n, failed))
    return cases


def compare(table_text, junit_path):
    """Where the printed table and the JUnit XML disagree ([] if nowhere)."""
    try:
        t, j = parse_table(table_text), parse_junit(junit_path)
    except (ValueError, ET.ParseError) as e:
        return [str(e)]
    bad = ['%s: only in the table' % n for n in t if n not in j]
    bad += ['%s: only in the XML' % n for n in j if n not in t]
    for n in t:
        if n in j and t[n] != j[n]:
            bad.append('%s: table says %r, XML says %r' % (n, t[n], j[n]))
    return bad
