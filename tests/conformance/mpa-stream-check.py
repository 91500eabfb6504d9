#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Walk every MPA stream of a loss-free capture, independently of the engine
and of Wireshark: TCP reassembly by sequence number, MPA Request/Reply (M and C
bits, revision), then each FPDU with its markers (RFC 5044: one every 512
stream octets from the first FPDU octet; FPDUPTR = marker offset minus the
offset of its FPDU's ULPDU_Length, 0 when the marker leads the FPDU), pad,
CRC32c over the FPDU octets before the CRC field (markers included), and the
DDP/RDMAP control bytes (DV = 1, RV = 1).

Prints per direction: FPDUs, markers checked, CRCs checked, RDMAP opcodes, and
how many FPDUs end exactly on the 512-octet marker grid (which tshark 4.0
mis-frames: see tests/conformance/iwarp-pcap.c).  Exit status 1 on any bad
marker, CRC, length, version or a stream that cannot be framed.

  mpa-stream-check.py [--require-opcodes 0,1,2] [--expect-failure] CAPTURE...
"""
import argparse
import collections
import struct
import sys

KEY_REQ = b'MPA ID Req Frame'
KEY_REP = b'MPA ID Rep Frame'
OPNAMES = {0: 'Write', 1: 'ReadReq', 2: 'ReadResp', 3: 'Send', 4: 'SendInv', 5: 'SendSE',
           6: 'SendSEInv', 7: 'Terminate', 8: 'ImmData', 9: 'ImmDataSE', 10: 'AtomicReq',
           11: 'AtomicResp'}


def crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


TABLE = crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    t = TABLE
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def read_pcap(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack_from('<I', data, 0)[0]
    if magic not in (0xa1b2c3d4, 0xa1b23c4d):
        sys.exit('mpa-stream-check: %s: not a little-endian pcap file' % path)
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack_from('<I', data, off + 8)[0]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def tcp_segments(path):
    """(src, sport, dst, dport, seq, flags, payload) of every IPv4/TCP frame,
    untagged or with one 802.1Q tag."""
    for fr in read_pcap(path):
        ip = 18 if fr[12:14] == b'\x81\x00' else 14
        if len(fr) < ip + 40 or fr[ip - 2:ip] != b'\x08\x00' or fr[ip + 9] != 6:
            continue
        ihl = (fr[ip] & 0xF) * 4
        tot = struct.unpack_from('>H', fr, ip + 2)[0]
        t = ip + ihl
        sport, dport, seq = struct.unpack_from('>HHI', fr, t)
        doff = (fr[t + 12] >> 4) * 4
        flags = fr[t + 13]
        payload = fr[t + doff:ip + tot]
        yield (bytes(fr[ip + 12:ip + 16]), sport, bytes(fr[ip + 16:ip + 20]), dport, seq,
               flags, payload)


class Dir:
    def __init__(self):
        self.isn = None
        self.segs = {}
        self.stream = b''

    def assemble(self):
        out = bytearray()
        nxt = (self.isn + 1) & 0xFFFFFFFF
        while nxt in self.segs:
            p = self.segs.pop(nxt)
            out += p
            nxt = (nxt + len(p)) & 0xFFFFFFFF
        self.stream = bytes(out)
        return not self.segs  # every captured byte was reachable


class Walk:
    def __init__(self, name):
        self.name = name
        self.fpdus = self.markers = self.crcs = self.grid_ends = 0
        self.ops = collections.Counter()
        self.errors = []

    def err(self, msg):
        if len(self.errors) < 5:
            self.errors.append(msg)


def walk(w, s, markers, crc):
    pos = 0
    n = len(s)

    while pos < n:
        start = pos
        fpdu = bytearray()
        hdr = [None]

        def take(count):
            nonlocal pos
            out = bytearray()
            while len(out) < count:
                if markers and pos % 512 == 0:
                    if pos + 4 > n:
                        return None
                    mk = s[pos:pos + 4]
                    ptr = struct.unpack_from('>H', mk, 2)[0]
                    want = 0 if hdr[0] is None else pos - hdr[0]
                    if mk[0:2] != b'\0\0' or ptr != want:
                        w.err('marker at stream offset %d: %s, want FPDUPTR %d'
                              % (pos, mk.hex(), want))
                    if hdr[0] is None:
                        hdr[0] = pos + 4
                    w.markers += 1
                    fpdu.extend(mk)
                    pos += 4
                    continue
                if pos >= n:
                    return None
                if hdr[0] is None:
                    hdr[0] = pos
                out.append(s[pos])
                fpdu.append(s[pos])
                pos += 1
            return bytes(out)

        lb = take(2)
        if lb is None:
            return  # the capture ends inside an FPDU
        ulen = struct.unpack('>H', lb)[0]
        pad = (4 - ((ulen + 2) & 3)) & 3
        body = take(ulen + pad)
        if body is None:
            return
        # a marker due where the CRC starts precedes it (and is covered)
        if markers and pos % 512 == 0 and pos + 4 <= n:
            mk = s[pos:pos + 4]
            want = pos - hdr[0]
            if mk[0:2] != b'\0\0' or struct.unpack_from('>H', mk, 2)[0] != want:
                w.err('marker before CRC at stream offset %d: %s, want FPDUPTR %d'
                      % (pos, mk.hex(), want))
            w.markers += 1
            fpdu.extend(mk)
            pos += 4
        if pos + 4 > n:
            return
        got = struct.unpack_from('<I', s, pos)[0]
        pos += 4
        if crc:
            w.crcs += 1
            if crc32c(fpdu) != got:
                w.err('bad CRC in FPDU %d at stream offset %d' % (w.fpdus, start))
        w.fpdus += 1
        if markers and pos % 512 == 0:
            w.grid_ends += 1
        u = body[:ulen]
        if ulen < 2:
            w.err('FPDU %d: ULPDU of %d octets' % (w.fpdus, ulen))
            continue
        if u[0] & 0x03 != 1 or u[1] >> 6 != 1:
            w.err('FPDU %d: DDP version %d / RDMAP version %d' % (w.fpdus, u[0] & 3, u[1] >> 6))
        w.ops[u[1] & 0x0F] += 1


def parse_rr(s, key):
    if len(s) < 20 or s[:16] != key:
        return None
    pdlen = struct.unpack_from('>H', s, 18)[0]
    return {'m': bool(s[16] & 0x80), 'c': bool(s[16] & 0x40), 'rev': s[17], 'len': 20 + pdlen}


def check(path, required):
    dirs = collections.OrderedDict()
    for src, sp, dst, dp, seq, flags, payload in tcp_segments(path):
        d = dirs.setdefault((src, sp, dst, dp), Dir())
        if flags & 0x02:
            d.isn = seq
        elif payload and seq not in d.segs:
            d.segs[seq] = payload
    ok = True
    seen = collections.Counter()
    conns = 0
    for key, d in dirs.items():
        if d.isn is None:
            continue
        if not d.assemble():
            print('  %s: capture has a hole: cannot frame it' % str(key))
            ok = False
    for (src, sp, dst, dp), d in dirs.items():
        req = parse_rr(d.stream, KEY_REQ)
        if not req:
            continue
        back = dirs.get((dst, dp, src, sp))
        rep = parse_rr(back.stream, KEY_REP) if back else None
        if not rep:
            print('  %s:%d: MPA Request without a Reply in the capture' % (src.hex(), sp))
            ok = False
            continue
        conns += 1
        crc = req['c'] or rep['c']
        # the M bit asks the *peer* to insert markers
        for name, stream, hdr_len, mk in (('%d->%d' % (sp, dp), d.stream, req['len'], rep['m']),
                                          ('%d->%d' % (dp, sp), back.stream, rep['len'], req['m'])):
            w = Walk(name)
            walk(w, stream[hdr_len:], mk, crc)
            seen.update(w.ops)
            ops = ' '.join('%s=%d' % (OPNAMES.get(o, hex(o)), c) for o, c in sorted(w.ops.items()))
            print('  %s rev %d CRC %s markers %s: %d FPDUs, %d markers, %d CRCs checked, '
                  '%d FPDUs end on the marker grid; %s'
                  % (w.name, req['rev'], 'on' if crc else 'off', 'on' if mk else 'off', w.fpdus,
                     w.markers, w.crcs, w.grid_ends, ops or 'no RDMAP'))
            for e in w.errors:
                print('    ERROR: ' + e)
            ok &= not w.errors
    missing = [o for o in required if not seen[o]]
    if missing:
        print('  expected RDMAP opcodes not seen: ' + ' '.join(OPNAMES.get(o, hex(o)) for o in missing))
        ok = False
    if not conns:
        print('  no MPA connection found')
        ok = False
    print('mpa-stream-check: %s: %d connections: %s' % (path, conns, 'OK' if ok else 'FAILED'))
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('pcaps', nargs='+')
    p.add_argument('--require-opcodes', default='')
    p.add_argument('--expect-failure', action='store_true')
    a = p.parse_args()
    req = [int(x, 0) for x in a.require_opcodes.split(',') if x]
    results = [check(f, req) for f in a.pcaps]
    if a.expect_failure:
        sys.exit(0 if not all(results) else 1)
    sys.exit(0 if all(results) else 1)


if __name__ == '__main__':
    main()
