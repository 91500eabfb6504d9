#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check lab captures with Wireshark's iWARP dissectors (tshark).

Fails on any malformed packet, expert error, bad MPA CRC, or RDMAP opcode that
was not expected; prints a per-connection summary (MPA revision, CRC, markers,
opcodes seen, payload bytes). The dissector only follows connections whose MPA
Request it saw, so captures must start before the connection does.

  pcap-check.py [--allow-opcodes 0,1,2,3] [--allow-terminate] guest1.pcap ...
  pcap-check.py --expect-failure corrupt.pcap    # the checker must flag it
  pcap-check.py --json conns.json guest1.pcap      # also each connection's negotiation
  pcap-check.py --check rping:7174:0,1,2,3 --check read_bw:18516:1,2 g1.pcap  # checks in one capture

A lab client that retries a failed attempt (client_try in tests/vm/guest/lib.sh)
first sends one UDP datagram "rnic-lab-retried port=P ..." to its peer's port 9.
On a connection to server port P that began before such a marker, a DDP "no
buffer" Terminate (layer 1, untagged buffer error 2, code 2: a Send that
arrived before the retried attempt's receive was posted) is accepted without
--allow-terminate, in the RFC's bit layout or in Linux siw's (see
term_reading); any other Terminate there, one that answers the peer's
Terminate (a Terminate is a stream's last message: nothing answers it), and
any Terminate elsewhere, is judged as before. Each judged Terminate gets a
line in the summary: who sent it, its cause, and the verdict.
"""
import argparse
import collections
import json
import re
import signal
import subprocess
import sys
import os
import tempfile

OPTS = ['-2', '-o', 'tcp.try_heuristic_first:TRUE', '--enable-heuristic', 'iwarp_mpa_tcp',
        # Application-level heuristics under DDP misfire on test payloads (rping,
        # perftest): they are not what this checker judges.
        '--disable-protocol', 'rpcordma', '--disable-protocol', 'smb_direct',
        # Plain TCP test payloads (nc, iperf3) look like Thrift to its heuristic.
        '--disable-protocol', 'thrift',
        # Send reassembly only feeds the ULP heuristics switched off above, and
        # it is quadratic: fragment_add_seq_next walks a message's fragment list
        # for every segment, so an 8 MiB Send (~6000 segments) costs minutes per
        # capture. It judges nothing (fragments are chained in arrival order,
        # without MSN or MO): the fields read below come out the same without it.
        '-o', 'iwarp_ddp_rdmap.reassemble_iwarp_rdma_send:FALSE']
FIELDS = ['frame.number', 'tcp.stream', 'ip.src', 'tcp.srcport', 'ip.dst', 'tcp.dstport',
          '_ws.malformed', '_ws.expert.severity', 'iwarp_mpa.key.req', 'iwarp_mpa.key.rep',
          'iwarp_mpa.marker_flag', 'iwarp_mpa.crc_flag', 'iwarp_mpa.rej_flag', 'iwarp_mpa.rev',
          'iwarp_rdma.opcode', 'iwarp_mpa.ulpdulength', 'iwarp_mpa.crc_check',
          'iwarp_mpa.res', 'iwarp_mpa.privatedata', 'iwarp_mpa.marker_fpduptr',
          'udp.dstport', 'udp.payload', 'icmp.type', 'vlan.id']
# A Terminate's control word as tshark splits it: the EType and Error Code
# land in the field of the layer the word names (of the first that applies).
TERM_ETYPE = ['iwarp_rdma.term_etype_rdma', 'iwarp_rdma.term_etype_ddp',
              'iwarp_rdma.term_etype_llp', 'iwarp_rdma.term_etype']
TERM_CODE = ['iwarp_rdma.term_errcode_rdma', 'iwarp_rdma.term_errcode_ddp_tagged',
             'iwarp_rdma.term_errcode_ddp_untagged', 'iwarp_rdma.term_errcode_llp',
             'iwarp_rdma.term_errcode']
TERM_FLAGS = ['iwarp_rdma.term_hdrct_m', 'iwarp_rdma.hdrct_d', 'iwarp_rdma.hdrct_r']
FIELDS += ['iwarp_rdma.term_layer', 'iwarp_rdma.term_rsvd'] + TERM_ETYPE + TERM_CODE + TERM_FLAGS
# --require-vlan: every frame of every iWARP connection carries this 802.1Q VID.
REQUIRE_VLAN = None
# The CRC verdict as a field (rnic_mpa_crc.bad: bad CRCs in the frame), from a
# Lua postdissector, so one tshark pass judges everything.
CRC_LUA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pcap-check-crc.lua')
CRC_FIELD = 'rnic_mpa_crc.bad'
PI_ERROR = 0x00800000
OPNAMES = {0: 'Write', 1: 'ReadReq', 2: 'ReadResp', 3: 'Send', 4: 'SendInv', 5: 'SendSE',
           6: 'SendSEInv', 7: 'Terminate', 8: 'ImmData', 9: 'ImmDataSE', 10: 'AtomicReq',
           11: 'AtomicResp'}
DEFAULT_OPCODES = '0,1,2,3,4,5,6'
TERMINATE = 7
# Layer DDP, EType untagged buffer error, code "invalid MSN - no buffer available"
# (RFC 5040 section 7.2): a Send that found no receive posted.
DDP_NO_BUFFER = (1, 2, 2)
LAYERS = {0: 'RDMAP', 1: 'DDP', 2: 'LLP'}
# Linux siw's M/D/R flags (bits 0-2 of the control word's third byte) seen
# through the RFC layout: tshark's 13 reserved bits 0x100/0x200/0x400.
SIW_FLAGS = 0x700
RETRY_MARKER_PORT = 9
RETRY_MARKER = re.compile(rb'^rnic-lab-retried port=(\d+)\b')


class TsharkError(Exception):
    pass


def tshark(pcap, extra):
    """tshark's output lines, streamed: a verbose pass over a 150 MB capture
    is gigabytes of text, which must never be held in memory at once."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(['tshark', '-r', pcap] + OPTS + extra, stdout=subprocess.PIPE,
                             stderr=err)
        try:
            for line in p.stdout:
                yield line.decode('utf-8', 'replace').rstrip('\n')
        finally:
            # Ended early (an error, or SIGTERM from the lab's timeout): our
            # tshark goes with us rather than reading on as an orphan.
            if p.poll() is None:
                p.kill()
                p.wait()
        if p.wait() != 0:
            err.seek(0)
            raise TsharkError('pcap-check: tshark failed on %s: %s' %
                              (pcap, err.read().decode().strip()[-400:]))


def field_pass(pcap, lua):
    """FIELDS per frame, plus the CRC verdict field with lua."""
    fields = FIELDS + ([CRC_FIELD] if lua else [])
    return tshark(pcap, (['-X', 'lua_script:' + CRC_LUA] if lua else []) +
                  ['-T', 'fields', '-E', 'occurrence=a', '-E', 'aggregator=,'] +
                  sum((['-e', f] for f in fields), []))


def text_crc_pass(pcap):
    """The frame of each bad CRC, from the CRC items' text: a second pass,
    only for a tshark without Lua."""
    frame, bad = None, []
    # -O keeps the other protocols' trees out of the output.
    for line in tshark(pcap, ['-Y', 'iwarp_mpa.crc_check', '-O', 'iwarp_mpa']):
        m = re.match(r'Frame (\d+):', line)
        if m:
            frame = int(m.group(1))
        elif 'Bad CRC32' in line:
            bad.append(frame)
    return bad


def ints(s):
    return [int(x, 0) for x in s.split(',') if x != '']


def bool_flag(s):
    return s.split(',')[0] in ('1', 'True', 'true')


def mpa_v2(res, pdata):
    """RFC 6581 Enhanced Connection Establishment data of a Request/Reply, or None.

    tshark shows the bits after M/C/R as 'res' (mask 0x1f): 0x10 is Enhanced."""
    if not res or not int(res.split(',')[0], 0) & 0x10:
        return None
    raw = bytes.fromhex(pdata.split(',')[0].replace(':', '')) if pdata else b''
    if len(raw) < 4:
        return {'short': True}
    ird, ord_ = int.from_bytes(raw[0:2], 'big'), int.from_bytes(raw[2:4], 'big')
    rtr = [n for n, on in (('send', ird & 0x4000), ('write', ord_ & 0x8000), ('read', ord_ & 0x4000)) if on]
    return {'ird': ird & 0x3fff, 'ord': ord_ & 0x3fff, 'p2p': bool(ird & 0x8000), 'rtr': rtr}


class Conn:
    def __init__(self):
        self.ends = None
        self.rev = None
        self.crc = [None, None]      # C bit in Request, Reply
        self.markers = [None, None]  # M bit in Request, Reply
        self.rejected = False
        self.ops = collections.Counter()
        self.bytes = 0
        self.crc_checked = 0
        self.server_port = None
        self.v2 = [None, None]       # RFC 6581 data in Request, Reply
        self.first_op = [None, None]  # first RDMAP opcode from initiator, from responder
        self.marker_ptrs = 0         # markers dissected in FPDUs
        self.first_frame = None      # frame of its first MPA message
        self.terms = []              # (frame, sender, control word or None) per Terminate
        self.retried_at = None       # frame of the harness's retry marker for it
        self.terms_accepted = 0      # no-buffer Terminates of a retried attempt
        self.vlans = collections.Counter()  # its MPA frames per 802.1Q VID ('' untagged)

    def as_dict(self):
        return {'ends': self.ends, 'server_port': self.server_port, 'rev': self.rev,
                'crc_req': self.crc[0], 'crc_rep': self.crc[1],
                'markers_req': self.markers[0], 'markers_rep': self.markers[1],
                'rejected': self.rejected, 'v2_req': self.v2[0], 'v2_rep': self.v2[1],
                'first_op_initiator': self.first_op[0], 'first_op_responder': self.first_op[1],
                'ops': {OPNAMES.get(o, hex(o)): n for o, n in sorted(self.ops.items())},
                'ulpdu_bytes': self.bytes, 'crc_checked': self.crc_checked,
                'markers_seen': self.marker_ptrs, 'retried_at_frame': self.retried_at,
                'terminates_accepted': self.terms_accepted}


def bools(s):
    return [x in ('1', 'True', 'true') for x in s.split(',') if x != '']


def term_controls(v, n):
    """The control word of each of a frame's n Terminates as tshark read it,
    the RFC's way: (layer, etype, code, M/D/R as bits 4/2/1, reserved); None
    for each when the fields do not line up one per Terminate (Terminates of
    different layers in one frame)."""
    def one_field(names):
        cols = [c for c in ([ints(v.get(f, '')) for f in names]) if c]
        return cols[0] if len(cols) == 1 and len(cols[0]) == n else None
    layer, etype, code = ints(v.get('iwarp_rdma.term_layer', '')), one_field(TERM_ETYPE), \
        one_field(TERM_CODE)
    rsvd = ints(v.get('iwarp_rdma.term_rsvd', ''))
    flags = [bools(v.get(f, '')) for f in TERM_FLAGS]
    if len(layer) != n or etype is None or code is None or len(rsvd) != n or \
            any(len(f) != n for f in flags):
        return [None] * n
    return [(layer[i], etype[i], code[i], flags[0][i] << 2 | flags[1][i] << 1 | flags[2][i],
             rsvd[i]) for i in range(n)]


def term_reading(ctl):
    """(cause, siw) of a Terminate's control word: siw when it is in Linux
    siw's layout. siw's struct iwarp_terminate declares layer:4, etype:4,
    ecode:8, flag_m:1, flag_d:1, flag_r:1 as little-endian bitfields, so on
    x86 the first byte carries etype in its high nibble (where the RFC puts
    the layer) and M/D/R sit in reserved bits: a word with no RFC flag but
    only those reserved bits set is read with layer and etype swapped. (A
    siw Terminate without flags cannot be told apart; none is accepted.)"""
    layer, etype, code, flags, rsvd = ctl
    if not flags and rsvd and not rsvd & ~SIW_FLAGS:
        return (etype, layer, code), True
    return (layer, etype, code), False


def term_name(cause):
    layer, etype, code = cause
    name = '%s %d/%d/0x%02x' % (LAYERS.get(layer, 'layer'), layer, etype, code)
    return name + (' (untagged buffer, no buffer)' if cause == DDP_NO_BUFFER else '')


def retry_marker(v):
    """The server port a harness retry marker names, or None. ICMP errors
    quoting a marker are not markers."""
    if v.get('udp.dstport') != str(RETRY_MARKER_PORT) or v.get('icmp.type') or not v.get('udp.payload'):
        return None
    try:
        m = RETRY_MARKER.match(bytes.fromhex(v['udp.payload'].replace(':', '')))
    except ValueError:
        return None
    return int(m.group(1)) if m else None


def parse_check(spec):
    """NAME:PORTS:OPCODES (PORTS and OPCODES comma lists) of --check."""
    try:
        name, ports, ops = spec.rsplit(':', 2)
        return name, set(ints(ports)), ints(ops)
    except ValueError:
        sys.exit('pcap-check: --check wants NAME:PORTS:OPCODES, not %r' % spec)


def judge_checks(pcap, conns, checks):
    """One verdict per check of several run in one capture: the connections to
    its server ports must carry each of its opcodes. The capture-wide rules
    (malformed, expert errors, CRC, opcodes allowed) judge them all at once."""
    ok = True
    for name, ports, ops in checks:
        mine = [c for c in conns.values() if c.server_port in ports]
        seen = collections.Counter()
        for c in mine:
            seen.update(c.ops)
        missing = [o for o in ops if not seen[o]]
        if not mine:
            verdict = 'FAIL: no iWARP connection to port %s' % ','.join(map(str, sorted(ports)))
        elif missing:
            verdict = 'FAIL: expected RDMAP opcodes not seen: ' + ' '.join(OPNAMES.get(o, hex(o)) for o in missing)
        else:
            verdict = 'OK (%d connections: %s)' % (len(mine), ' '.join(
                '%s=%d' % (OPNAMES.get(o, hex(o)), n) for o, n in sorted(seen.items())))
        ok = ok and verdict.startswith('OK')
        print('pcap-check: %s: check %s: %s' % (pcap, name, verdict))
    return ok


def check(pcap, allowed, allow_term, required=(), conns_out=None, checks=()):
    try:
        scan = scan_fields(field_pass(pcap, True), allowed, allow_term, True)
    except TsharkError as e:
        if CRC_FIELD not in str(e):
            sys.exit(str(e))
        # No Lua in this tshark: the CRC verdict takes a second, text pass.
        try:
            scan = scan_fields(field_pass(pcap, False), allowed, allow_term, False)
            if any(c.crc_checked for c in scan.conns.values()):
                scan.bad_crc_frames = text_crc_pass(pcap)
        except TsharkError as e2:
            sys.exit(str(e2))
    ok = report(pcap, scan, allowed, allow_term, required, conns_out)
    return judge_checks(pcap, scan.conns, checks) and ok


class Scan:
    """What one pass over a capture's fields found."""
    def __init__(self):
        self.conns = collections.OrderedDict()
        self.frames = self.malformed = self.experr = 0
        self.bad_ops = collections.Counter()
        self.retries = []            # (frame, server port) of retry markers
        self.bad_crc_frames = []     # a frame per bad CRC


def scan_fields(out, allowed, allow_term, lua):
    st = Scan()
    conns, bad_ops, retries = st.conns, st.bad_ops, st.retries
    frames = malformed = experr = 0
    fields = FIELDS + ([CRC_FIELD] if lua else [])
    for line in out:
        v = dict(zip(fields, line.split('\t')))
        frames += 1
        if v.get(CRC_FIELD):
            st.bad_crc_frames += [int(v['frame.number'])] * sum(ints(v[CRC_FIELD]))
        port = retry_marker(v)
        if port is not None:
            retries.append((frames, port))
        if v.get('_ws.malformed'):
            malformed += 1
        if any(s >= PI_ERROR for s in ints(v.get('_ws.expert.severity', ''))):
            experr += 1
        stream = v.get('tcp.stream', '')
        if stream == '':
            continue
        has_mpa = v.get('iwarp_mpa.key.req') or v.get('iwarp_mpa.key.rep') or v.get('iwarp_rdma.opcode') \
            or v.get('iwarp_mpa.ulpdulength')
        if not has_mpa:
            continue
        c = conns.setdefault(stream, Conn())
        c.vlans[v.get('vlan.id', '')] += 1
        if c.first_frame is None:
            c.first_frame = frames
        if v.get('iwarp_mpa.key.req'):
            c.ends = '%s:%s -> %s:%s' % (v['ip.src'], v['tcp.srcport'], v['ip.dst'], v['tcp.dstport'])
            c.server_port = int(v['tcp.dstport'])
            c.rev = v.get('iwarp_mpa.rev')
            c.crc[0] = bool_flag(v.get('iwarp_mpa.crc_flag', '0'))
            c.markers[0] = bool_flag(v.get('iwarp_mpa.marker_flag', '0'))
            c.v2[0] = mpa_v2(v.get('iwarp_mpa.res'), v.get('iwarp_mpa.privatedata'))
        if v.get('iwarp_mpa.key.rep'):
            c.crc[1] = bool_flag(v.get('iwarp_mpa.crc_flag', '0'))
            c.markers[1] = bool_flag(v.get('iwarp_mpa.marker_flag', '0'))
            c.rejected = bool_flag(v.get('iwarp_mpa.rej_flag', '0'))
            c.rev_rep = v.get('iwarp_mpa.rev')
            c.v2[1] = mpa_v2(v.get('iwarp_mpa.res'), v.get('iwarp_mpa.privatedata'))
        c.marker_ptrs += len(v['iwarp_mpa.marker_fpduptr'].split(',')) if v.get('iwarp_mpa.marker_fpduptr') else 0
        side = 0 if c.server_port is not None and v.get('tcp.dstport') == str(c.server_port) else 1
        opcodes = ints(v.get('iwarp_rdma.opcode', ''))
        for op in opcodes:
            if c.first_op[side] is None:
                c.first_op[side] = OPNAMES.get(op, hex(op))
            c.ops[op] += 1
            if op not in allowed and not (op == TERMINATE and allow_term):
                if op == TERMINATE:
                    continue    # judged below, once the retry markers are known
                bad_ops[op] += 1
        if TERMINATE in opcodes:
            sender = '%s:%s' % (v.get('ip.src'), v.get('tcp.srcport'))
            c.terms += [(frames, sender, t) for t in term_controls(v, opcodes.count(TERMINATE))]
        c.bytes += sum(ints(v.get('iwarp_mpa.ulpdulength', '')))
        c.crc_checked += len(v.get('iwarp_mpa.crc_check', '').split(',')) if v.get('iwarp_mpa.crc_check') else 0
    st.frames, st.malformed, st.experr = frames, malformed, experr
    return st


def report(pcap, st, allowed, allow_term, required, conns_out):
    conns, bad_ops, retries = st.conns, st.bad_ops, st.retries
    frames, malformed, experr = st.frames, st.malformed, st.experr
    if TERMINATE not in allowed and not allow_term:
        for c in conns.values():
            # Connections to the port of an attempt the harness retried, opened
            # before it said so: the failed attempt's, never the retry's.
            c.retried_at = next((f for f, p in retries if p == c.server_port and
                                 c.first_frame is not None and c.first_frame < f), None)
            c.term_notes = []
            for frame, sender, ctl in c.terms:
                cause, siw = term_reading(ctl) if ctl else (None, False)
                # The other end's Terminate came first: this one answers it.
                answer = any(f < frame and s != sender for f, s, _ in c.terms)
                what = ('frame %d: Terminate from %s: %s%s' %
                        (frame, sender, term_name(cause) if cause else 'cause not decoded',
                         " in siw's little-endian bit layout" if siw else ''))
                if answer:
                    verdict = "unexpected: it answers the peer's Terminate, which nothing may"
                elif c.retried_at is not None and cause == DDP_NO_BUFFER:
                    c.terms_accepted += 1
                    verdict = "accepted: a Send that beat the receive in an attempt the harness retried"
                else:
                    verdict = 'unexpected'
                if not verdict.startswith('accepted'):
                    bad_ops[TERMINATE] += 1
                c.term_notes.append('%s: %s' % (what, verdict))

    bad_crc_frames = st.bad_crc_frames
    bad_crc = len(bad_crc_frames)

    print('pcap-check: %s: %d frames, %d iWARP connections' % (pcap, frames, len(conns)))
    for f, p in retries:
        print('  frame %d: the harness retried an attempt on server port %d' % (f, p))
    for s, c in conns.items():
        crc = 'on' if (c.crc[0] or c.crc[1]) else 'off'
        mk = '/'.join('?' if m is None else ('on' if m else 'off') for m in c.markers)
        ops = ' '.join('%s=%d' % (OPNAMES.get(o, hex(o)), n) for o, n in sorted(c.ops.items()))
        v2 = ''
        if c.v2[0] or c.v2[1]:
            v2 = ', IRD/ORD/RTR req %s rep %s' % tuple(
                '-' if not x else ('%s/%s/%s' % (x.get('ird'), x.get('ord'), '+'.join(x.get('rtr', [])) or
                                               ('p2p' if x.get('p2p') else 'none'))) for x in c.v2)
        acc = ''
        if c.terms_accepted:
            acc = (', %d DDP no-buffer Terminate(s) accepted: an attempt the harness retried (frame %d)'
                   % (c.terms_accepted, c.retried_at))
        vl = ''
        if any(c.vlans):
            vl = ', ' + ' '.join('%s=%d' % ('VLAN ' + k if k else 'untagged', n)
                                 for k, n in sorted(c.vlans.items()))
        print('  conn %s %s: MPA rev %s, CRC %s (%d checked), markers req/rep %s%s%s%s, %d ULPDU bytes, %s%s'
              % (s, c.ends or '(handshake not captured)', c.rev, crc, c.crc_checked, mk, v2, vl,
                 ', REJECTED' if c.rejected else '', c.bytes, ops or 'no RDMAP opcodes', acc))
        for note in getattr(c, 'term_notes', []):
            print('    ' + note)
        if conns_out is not None:
            conns_out.append(dict(c.as_dict(), pcap=pcap, stream=s))
    problems = []
    if malformed:
        problems.append('%d malformed packets' % malformed)
    if experr:
        problems.append('%d packets with expert errors' % experr)
    if bad_crc:
        problems.append('%d bad MPA CRCs (frames %s)' % (bad_crc, ','.join(map(str, bad_crc_frames[:10]))))
    if REQUIRE_VLAN is not None:
        off = [s for s, c in conns.items() if set(c.vlans) != {str(REQUIRE_VLAN)}]
        if off or not conns:
            problems.append('%d of %d iWARP connections not only on VLAN %d%s' %
                            (len(off), len(conns), REQUIRE_VLAN, ' (streams %s)' % ','.join(off[:10])
                             if off else ''))
    seen = collections.Counter()
    for c in conns.values():
        seen.update(c.ops)
    missing = [o for o in required if not seen[o]]
    if missing:
        # tshark silently loses FPDUs it cannot frame: an opcode the test must
        # have produced and that is absent means the capture was not judged.
        problems.append('expected RDMAP opcodes not seen: ' + ' '.join(OPNAMES.get(o, hex(o)) for o in missing))
    if bad_ops:
        problems.append('unexpected RDMAP opcodes: ' +
                        ' '.join('%s=%d' % (OPNAMES.get(o, hex(o)), n) for o, n in sorted(bad_ops.items())))
    print('pcap-check: %s: %s' % (pcap, '; '.join(problems) if problems else
                                  '0 malformed, 0 expert errors, 0 bad CRC, opcodes as expected: OK'))
    return not problems


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('pcaps', nargs='+')
    p.add_argument('--allow-opcodes', default=DEFAULT_OPCODES,
                   help='RDMAP opcodes expected (default %s: no Terminate, no RFC 7306)' % DEFAULT_OPCODES)
    p.add_argument('--allow-terminate', action='store_true')
    p.add_argument('--require-opcodes', default='',
                   help='RDMAP opcodes that must appear in every capture (e.g. 0,1,2,3)')
    p.add_argument('--check', action='append', default=[], metavar='NAME:PORTS:OPCODES',
                   help='one of several checks in the capture: its connections (to these server '
                   'ports) must carry these opcodes; prints a verdict line per check')
    p.add_argument('--json', metavar='FILE',
                   help="write every connection's negotiation and traffic as JSON")
    p.add_argument('--require-vlan', type=int, metavar='VID',
                   help='every frame of every iWARP connection carries this 802.1Q VLAN ID '
                   '(and some connection exists)')
    p.add_argument('--expect-failure', action='store_true',
                   help='succeed only if some capture is flagged (proves the checker can fail)')
    a = p.parse_args()
    global REQUIRE_VLAN
    REQUIRE_VLAN = a.require_vlan
    allowed = set(ints(a.allow_opcodes))
    conns = [] if a.json else None
    checks = [parse_check(c) for c in a.check]
    results = [check(f, allowed, a.allow_terminate, ints(a.require_opcodes), conns, checks) for f in a.pcaps]
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'pcaps': dict(zip(a.pcaps, results)), 'conns': conns}, f, indent=1)
    if a.expect_failure:
        flagged = not all(results)
        print('pcap-check: expected a flagged capture: %s' % ('flagged, as it must be' if flagged else 'NOTHING FLAGGED'))
        sys.exit(0 if flagged else 1)
    sys.exit(0 if all(results) else 1)


if __name__ == '__main__':
    # SIGTERM/SIGHUP unwind like an exception, so tshark() ends its child.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    main()
