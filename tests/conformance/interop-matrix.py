#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The rnic <-> siw interoperability and negotiation matrix (./rnic conformance).

One lab boot: guest 1 has the rnic device, guest 2 virtio-net with the Linux siw
reference (the variants scripts/setup/kernel.sh builds). Every cell runs the kernel
verbs exerciser rnic_krping (Send, Write, Read, FRWR, every byte checked) with one
MPA setting on each side, rnic as server or as client; the guests run the cells in
turn (tests/vm/guest/interop-matrix.sh). A cell passes when both sides report what
it expects (a verified run, or a clean refusal with no data and no kernel splat)
AND the capture shows the negotiation the cell expects: MPA revision, CRC, markers,
reject, RFC 6581 IRD/ORD and RTR. The capture is also judged by pcap-check.py
(no malformed packet, no bad CRC).

  interop-matrix.py [--only NAME,...] [--list] [--out DIR]

Besides the table it writes DIR/junit.xml (JUnit XML: one testcase per cell,
plus the capture check and the lab run), for CI systems to consume.
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (the JUnit XML, as image-matrix.py writes it)

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
BASE_PORT = 18600

# name, siw variant, server, rnic module parameters, expected outcome, capture checks.
# rnic's defaults: CRC requested, no markers, no RTR; siw: see kernel.sh's SIW_VARIANTS.
# Checks (on the cell's connection in the capture): rev, crc (used by the
# connection: RFC 5044 says CRC is on when either side asks), markers_req/_rep,
# rejected, rtr (the one the responder chose), first (first RDMAP opcode the
# initiator sent: the RTR itself), ird_max/ord_max (both sides' values).
D = 'mpa_crc=1,mpa_markers=0,mpa_p2p=0,mpa_rev=2'
CELLS = [
    # MPA revision 2, CRC asked by rnic and by nobody.
    ('rev2-crc-rnic-server', 'siw', 'rnic', D, 'ok', dict(rev='2', crc=True, markers_rep=False)),
    ('rev2-crc-siw-server', 'siw', 'siw', D, 'ok', dict(rev='2', crc=True, markers_rep=False)),
    ('rev2-nocrc-rnic-server', 'siw', 'rnic', 'mpa_crc=0', 'ok', dict(rev='2', crc=False)),
    ('rev2-nocrc-siw-server', 'siw', 'siw', 'mpa_crc=0', 'ok', dict(rev='2', crc=False)),
    # Markers asked by rnic: siw cannot send markers, so it must refuse. As
    # responder it answers the Request with an MPA Reject (R bit); as initiator it
    # drops a Reply with M set (RFC 5044 7.1.2: markers are per direction, a side
    # that cannot honour the peer's M must not go on). No data either way.
    ('markers-siw-server', 'siw', 'siw', 'mpa_crc=1,mpa_markers=1', 'fail',
     dict(markers_req=True, rejected=True)),
    ('markers-rnic-server', 'siw', 'rnic', 'mpa_markers=1', 'fail',
     dict(markers_req=False, markers_rep=True)),
    # rnic asks for an RTR (RFC 6581 peer-to-peer): siw picks Write or Read.
    # CRC required by siw (siw-crc), not asked by rnic. siw as initiator asks C=1
    # and CRC is used both ways (RFC 5044: either side asking is enough). siw as
    # responder only echoes the Request's C bit (siw_proc_mpareq sets C only when
    # the Request has it), so with rnic not asking the connection runs without CRC.
    ('crc-siw-required-rnic-server', 'siw-crc', 'rnic', 'mpa_crc=0,mpa_p2p=0', 'ok',
     dict(rev='2', crc=True)),
    ('crc-siw-required-siw-server', 'siw-crc', 'siw', 'mpa_crc=0', 'ok', dict(rev='2', crc=False)),
    # MPA revision 1 from siw: rnic answers revision 1, no RFC 6581 data.
    ('rev1-siw-client', 'siw-rev1', 'rnic', 'mpa_crc=1', 'ok', dict(rev='1', crc=True, v2=False)),
    ('rev1-nocrc-siw-client', 'siw-rev1', 'rnic', 'mpa_crc=0', 'ok', dict(rev='1', crc=False, v2=False)),
    # rnic as a revision 1 initiator (driver parameter mpa_rev=1): siw answers rev 1.
    ('rev1-rnic-client', 'siw', 'siw', 'mpa_rev=1', 'ok', dict(rev='1', crc=True, v2=False)),
    # siw asks for an RTR: Write or Read offered, then Read only.
    ('rtr-siw-client-write-or-read', 'siw-p2p', 'rnic', 'mpa_crc=1', 'ok',
     dict(rev='2', rtr=['read'], first='ReadReq')),
    ('rtr-siw-client-read', 'siw-p2p-read', 'rnic', 'mpa_crc=1', 'ok',
     dict(rev='2', rtr=['read'], first='ReadReq')),
    # siw allows one outstanding RDMA Read each way: IRD/ORD 1 on siw's side,
    # rnic must not send more Read Requests than that (siw would terminate).
    ('ird1-rnic-server', 'siw-ird1', 'rnic', 'mpa_crc=1', 'ok', dict(rev='2', ird_ord_siw=1)),
    ('ird1-siw-server', 'siw-ird1', 'siw', 'mpa_crc=1', 'ok', dict(rev='2', ird_ord_siw=1)),
    # siw as RTR responder, last: when siw's accept race hits here, rnic's abort
    # after the timeout meets BUG() in the siw guest's iw_cm (see SIW_ISSUES).
    ('rtr-read-rnic-client', 'siw', 'siw', 'mpa_p2p=2', 'ok',
     dict(rev='2', rtr=['read'], first='ReadReq')),
    ('rtr-write-rnic-client', 'siw', 'siw', 'mpa_p2p=1', 'ok',
     dict(rev='2', rtr=['write'], first='Write')),
    # Last, and only with --all: cells where the Linux 6.12 reference fails on
    # its own side (SIW_ISSUES); a crashed siw guest would void every later cell.
    # Only a zero-length Send offered: siw never does Send RTRs and answers Write
    # anyway, which the initiator did not offer: rnic must refuse the Reply
    # (RFC 6581: Terminate, connection closed), not run on.
    ('rtr-send-rnic-client', 'siw', 'siw', 'mpa_p2p=4', 'fail', dict(rev='2')),
]

# What the reference does wrong in the cells left out by default (seen in the lab;
# docs/conformance.md tells what the captures show).
SIW_ISSUES = {
    'rtr-send-rnic-client': 'siw answers an RTR the initiator did not offer (Write for Send); '
                            "rnic's Terminate then hits BUG() in iw_cm (iwcm.c:964) on the siw guest "
                            '(so does any close while siw still waits for the RTR)',
}


def side_results(results_txt):
    """{(cell, side): {key: value}} from the guests' RESULT interop lines."""
    out = {}
    for line in open(results_txt):
        words = line.split()
        if len(words) < 2 or words[1] != 'interop':
            continue
        kv = dict(w.split('=', 1) for w in words[2:] if '=' in w)
        out[(kv.get('cell'), kv.get('side'))] = kv
    return out


def judge(cell, sides, conn):
    """Problems with one cell ([] if it passed)."""
    name, variant, server, _, expect, chk = cell
    bad = []
    for side in ('rnic', 'siw'):
        r = sides.get((name, side))
        if r is None:
            bad.append('%s side reported nothing' % side)
            continue
        if r.get('kernel_bad') != '0':
            bad.append('%s kernel log has BUG/WARNING/Oops/leak' % side)
        ran = r.get('ok') == '1' and r.get('insmod_rc') == '0'
        if expect == 'ok' and not ran:
            bad.append('%s: krping failed (err=%s)' % (side, r.get('err')))
        if expect == 'fail' and ran:
            bad.append('%s: connection worked although it must be refused' % side)
        if expect == 'fail' and int(r.get('bytes', '0') or 0):
            bad.append('%s: data moved on a refused connection' % side)
    if conn is None:
        return bad + ['no connection on port %d in the capture' % cell_port(name)]
    for k, want in chk.items():
        if k == 'crc':
            got = bool(conn['crc_req'] or conn['crc_rep'])
        elif k == 'rtr':
            got = (conn['v2_rep'] or {}).get('rtr')
        elif k == 'first':
            got = conn['first_op_initiator']
        elif k == 'v2':
            got = bool(conn['v2_req'] or conn['v2_rep'])
        elif k == 'ird_ord_siw':
            # The siw side's own IRD/ORD in its Request (client) or Reply (server).
            v2 = conn['v2_rep'] if server == 'siw' else conn['v2_req']
            got = max(v2['ird'], v2['ord']) if v2 else None
            if got is not None and got != 0 and got <= want:
                continue
        else:
            got = conn.get(k)
        if got != want:
            bad.append('capture: %s is %s, want %s' % (k, got, want))
    if expect == 'ok' and conn['ulpdu_bytes'] == 0:
        bad.append('capture: no ULPDU bytes')
    if bad and expect == 'ok' and server == 'siw' and conn['first_op_responder'] is None and \
            conn['first_op_initiator'] in ('Send', 'Write', 'ReadReq') and sum(conn['ops'].values()) <= 2:
        # Seen with Linux 6.12 siw: siw_accept is in RDMA mode before it sends the
        # Reply and hooks the socket to the QP (or to the RTR handler) after it;
        # an FPDU arriving in between is TCP-acked and ignored for good.
        bad.append('siw accept race: the first FPDU after the MPA Reply was never delivered by siw')
    if expect == 'fail' and any(op in conn['ops'] for op in ('Write', 'Send', 'SendInv', 'ReadResp')) \
            and 'rtr' not in chk and conn['first_op_initiator'] != 'Terminate':
        bad.append('capture: data FPDUs on a refused connection: %s' % conn['ops'])
    return bad


def write_junit(path, rows, seconds, capture_ok, lab_rc):
    """rows: (cell, siw, server, expect, capture, verdict) as in the table."""
    cases = [('cell.' + r[0], 'siw %s, %s serves, expect %s; capture: %s' % r[1:5],
              None if r[5] == 'PASS' else r[5][len('FAIL: '):]) for r in rows]
    cases.append(('pcap-check', '', None if capture_ok else 'malformed packet or bad CRC in the capture'))
    cases.append(('lab', '', None if lab_rc == 0 else 'lab.py exited %d' % lab_rc))
    report.write_junit(path, 'rnic-siw-conformance', 'interop-matrix', cases, seconds)


def cell_port(name):
    return BASE_PORT + 1 + [c[0] for c in CELLS].index(name)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--only', default='', help='comma list of cell names')
    p.add_argument('--list', action='store_true')
    p.add_argument('--out')
    p.add_argument('--timeout', type=int, default=1500)
    p.add_argument('--all', action='store_true', help='also the cells where siw itself fails (SIW_ISSUES)')
    a = p.parse_args()
    cells = [c for c in CELLS if (a.only and c[0] in a.only.split(',')) or
             (not a.only and (a.all or c[0] not in SIW_ISSUES))]
    if a.list or not cells:
        for c in CELLS:
            print('%-30s siw=%-13s server=%-5s rnic=%-32s expect=%s%s' %
                  (c[:5] + ('  [--all: %s]' % SIW_ISSUES[c[0]] if c[0] in SIW_ISSUES else '',)))
        sys.exit(0 if a.list else 2)
    cache = os.environ.get('RNIC_CACHE', os.path.expanduser('~/.cache/rnic'))
    # Not under runs/: every lab start prunes that to its newest few, running or not.
    out = a.out or os.path.join(cache, 'conformance', 'interop-matrix-%s-%d' % (time.strftime('%Y%m%d-%H%M%S'), os.getpid()))
    os.makedirs(out, exist_ok=True)
    # Ports follow the cell's place in CELLS, so a subset keeps them: the guest
    # script numbers its lines, hence commented placeholders for skipped cells.
    cells_file = os.path.join(out, 'cells.txt')
    with open(cells_file, 'w') as f:
        for c in CELLS:
            # Parameters stay set from cell to cell: each cell gives all of them.
            params = dict(kv.split('=') for kv in D.split(','))
            params.update(kv.split('=') for kv in c[3].split(','))
            f.write(('%s %s %s %s %s\n' % (c[0], c[1], c[2], ','.join('%s=%s' % kv for kv in params.items()),
                                          c[4])) if c in cells else '#\n')
    t0 = time.time()
    lab = subprocess.run([sys.executable, os.path.join(TOP, 'tests', 'vm', 'lab.py'), '--guests', '2',
                          '--nic', 'rnic,virtio', '--quiet', '--timeout', str(a.timeout), '--out', out,
                          '--no-pcap-check', '--env', 'RNIC_MATRIX=' + cells_file,
                          '--script', os.path.join(TOP, 'tests', 'vm', 'guest', 'interop-matrix.sh')])
    conns_json = os.path.join(out, 'conns.json')
    # The rnic guest's capture holds every cell; Terminates are judged per cell.
    pc = subprocess.run([sys.executable, os.path.join(TOP, 'tests', 'conformance', 'pcap-check.py'),
                         '--allow-terminate', '--json', conns_json, os.path.join(out, 'guest1.pcap')])
    sides = side_results(os.path.join(out, 'results.txt'))
    conns = json.load(open(conns_json))['conns'] if os.path.exists(conns_json) else []
    rows, failed = [], 0
    for c in cells:
        mine = [x for x in conns if x['server_port'] == cell_port(c[0])]
        bad = judge(c, sides, mine[-1] if mine else None)
        failed += bool(bad)
        x = mine[-1] if mine else {}
        v2 = x.get('v2_rep') or {}
        neg = 'rev %s crc %s mk %s/%s%s%s' % (
            x.get('rev', '?'), 'on' if (x.get('crc_req') or x.get('crc_rep')) else 'off',
            'on' if x.get('markers_req') else 'off', 'on' if x.get('markers_rep') else 'off',
            ' rtr ' + '+'.join(v2['rtr']) if v2.get('rtr') else '',
            ' REJECT' if x.get('rejected') else '')
        rows.append((c[0], c[1], c[2], c[4], neg, 'PASS' if not bad else 'FAIL: ' + '; '.join(bad)))
    print('\nrnic <-> siw conformance matrix (%d cells, %.0f s, run %s)' % (len(cells), time.time() - t0, out))
    print('%-30s %-13s %-6s %-6s %-32s %s' % ('cell', 'siw', 'server', 'expect', 'capture', 'verdict'))
    for r in rows:
        print('%-30s %-13s %-6s %-6s %-32s %s' % r)
    print('pcap-check (malformed/bad CRC): %s; lab exit %d' % ('OK' if pc.returncode == 0 else 'FLAGGED', lab.returncode))
    junit = os.path.join(out, 'junit.xml')
    write_junit(junit, rows, time.time() - t0, pc.returncode == 0, lab.returncode)
    print('JUnit XML: %s' % junit)
    print('%d passed, %d failed' % (len(cells) - failed, failed))
    sys.exit(1 if failed or pc.returncode or lab.returncode else 0)


if __name__ == '__main__':
    main()
