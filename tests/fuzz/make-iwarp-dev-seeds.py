#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seed corpus for fuzz-iwarp-dev (format in fuzz-iwarp-dev.c): legal and
hostile DDP/RDMAP segments aimed at the victim's registered memory (STags and
addresses from the harness), for each MPA configuration; fuzzed MPA
handshakes (Requests v1/v2, IRD/ORD, bytes after the Request), guest
rejects, 12 connections, guest actions during traffic, spoofed Read/Atomic
Responses, Send-with-Invalidate across PDs, peer Terminates."""
import os, struct, sys

T, T_STAG = 0x100000000, 0x00000a31
RO, RO_STAG = 0x200000000, 0x00000b32
OP, OP_STAG = 0x400000000, 0x00000d34

def tagged(op, stag, to, payload, last=True):
    return bytes([0x81 | (0x40 if last else 0), 0x40 | op]) + struct.pack('>IQ', stag, to) + payload

def untagged(op, qn, msn, mo, payload=b'', last=True, inv=0):
    return bytes([0x01 | (0x40 if last else 0), 0x40 | op]) + struct.pack('>IIII', inv, qn, msn, mo) + payload

def read_req(msn, src_stag, src_to, size):
    return untagged(1, 1, msn, 0, struct.pack('>IQIIQ', 0x1234, 0x5000, size, src_stag, src_to))

def atomic(msn, op, stag, to):
    return untagged(10, 1, msn, 0, struct.pack('>IIIQQQQQ', op, 1, stag, to, 5, 0, 0, 0))

R, R_STAG = 0x600000000, 0x00000f36


def rec(seg, raw=False, run=False, act=0):
    return bytes([(1 if raw else 0) | (2 if run else 0) | act << 2]) + struct.pack('>H', len(seg)) + seg


def mpa_req(rev=2, crc=True, markers=False, ird=4, ord_=4, v2=True, pd=b'attacker', key=b'MPA ID Req Frame', res=0):
    blk = struct.pack('>HH', ird, ord_) if v2 else b''
    fl = (0x80 if markers else 0) | (0x40 if crc else 0) | (0x10 if v2 else 0) | res
    return key + bytes([fl, rev]) + struct.pack('>H', len(blk) + len(pd)) + blk + pd


def read_resp(stag, to, payload, last=True):
    return tagged(2, stag, to, payload, last)


def atomic_resp(msn, orig):
    return untagged(11, 3, msn, 0, struct.pack('>IQ', 0x1234, orig))

pay = bytes(range(256)) * 4
seeds = {
    'write': [tagged(0, T_STAG, T + 100, pay[:300])],
    'send': [untagged(3, 0, 1, 0, pay[:200])],
    'send-multi': [untagged(3, 0, 1, 0, pay[:100], last=False), untagged(3, 0, 1, 100, pay[:100])],
    'read': [read_req(1, T_STAG, T, 1000)],
    'read-ro': [read_req(1, RO_STAG, RO, 64)],
    'atomic': [atomic(1, 0, T_STAG, T + 64)],
    'write-ro': [tagged(0, RO_STAG, RO, pay[:64])],
    'write-other-pd': [tagged(0, OP_STAG, OP, pay[:64])],
    'write-bounds': [tagged(0, T_STAG, T + 65530, pay[:64])],
    'send-inv': [untagged(4, 0, 1, 0, pay[:32], inv=T_STAG)],
    'imm': [untagged(8, 0, 1, 0, struct.pack('>Q', 7))],
    'terminate': [untagged(7, 2, 1, 0, bytes([0x11, 0, 0x40, 0]))],
    'mixed': [tagged(0, T_STAG, T, pay[:500], last=False), tagged(0, T_STAG, T + 500, pay[:500]),
              untagged(3, 0, 1, 0, pay[:10]), read_req(1, T_STAG, T + 8, 16), untagged(5, 0, 2, 0, b'')],
}
# Guest actions (flags bits 2-4) with the peer's traffic around them.
SEND, READ, FADD, DEREG, DESTROY, RESET, ABORT = 1, 2, 3, 4, 5, 6, 7
acts = {
    'read-resp': [rec(b'', run=True, act=READ), rec(read_resp(R_STAG, R + 4096, pay[:256]), run=True)],
    'read-resp-spoof': [rec(read_resp(R_STAG, R, pay[:256]), run=True)],
    'read-resp-long': [rec(b'', run=True, act=READ), rec(read_resp(R_STAG, R + 4096, pay[:512]), run=True)],
    'read-resp-late': [rec(b'', run=True, act=READ), rec(b'', run=True, act=DEREG),
                       rec(read_resp(R_STAG, R + 4096, pay[:256]), run=True)],
    'atomic-resp': [rec(b'', run=True, act=FADD), rec(atomic_resp(1, 41), run=True)],
    'atomic-resp-spoof': [rec(atomic_resp(1, 41), run=True), rec(atomic_resp(7, 1))],
    'send-inv-other-pd': [rec(untagged(4, 0, 1, 0, pay[:32], inv=OP_STAG), run=True),
                          rec(tagged(0, OP_STAG, OP, pay[:64]), run=True)],
    'send-inv-rq-mr': [rec(untagged(4, 0, 1, 0, pay[:32], inv=R_STAG), run=True),
                       rec(untagged(3, 0, 2, 0, pay[:32]), run=True)],
    'dereg-write': [rec(tagged(0, T_STAG, T, pay[:100]), run=True, act=DEREG),
                    rec(tagged(0, T_STAG, T, pay[:100]), run=True)],
    'destroy-write': [rec(tagged(0, T_STAG, T, pay[:500], last=False), act=DESTROY),
                      rec(tagged(0, T_STAG, T + 500, pay[:500]), run=True)],
    'reset-write': [rec(tagged(0, T_STAG, T, pay[:500], last=False), run=True),
                    rec(tagged(0, T_STAG, T + 500, pay[:500]), act=RESET), rec(read_req(1, T_STAG, T, 100), run=True)],
    'abort-send': [rec(untagged(3, 0, 1, 0, pay[:100]), act=ABORT), rec(untagged(3, 0, 2, 0, pay[:100]), run=True)],
    'send-then-term': [rec(b'', run=True, act=SEND), rec(untagged(7, 2, 1, 0, bytes([0x12, 0, 0, 0])), run=True)],
    'term-ddp': [rec(untagged(7, 2, 1, 0, bytes([0x21, 0x02, 0x40, 0]) + tagged(0, T_STAG, T, b'')))],
    'term-mpa': [rec(untagged(7, 2, 1, 0, bytes([0x32, 0x02, 0, 0])), run=True), rec(tagged(0, T_STAG, T, pay[:10]))],
    'term-read': [rec(b'', run=True, act=READ), rec(untagged(7, 2, 1, 0, bytes([0x10, 0x01, 0x40, 0])), run=True)],
}
# Fuzzed handshakes (cfg bit 4): the first record is the Request.
fpdu_after = b'\x00\x0e' + tagged(0, T_STAG, T, b'')
hands = {
    'hs-v2': mpa_req(),
    'hs-v2-ird-ord': mpa_req(ird=0x3fff, ord_=0x3fff),
    'hs-v2-p2p': mpa_req(ird=0xc004, ord_=0x8004),
    'hs-v2-zero': mpa_req(ird=0, ord_=0),
    'hs-v1': mpa_req(rev=1, v2=False),
    'hs-v1-markers': mpa_req(rev=1, v2=False, markers=True),
    'hs-rev3': mpa_req(rev=3),
    'hs-bad-key': mpa_req(key=b'MPA ID Rep Frame'),
    'hs-res': mpa_req(res=0x0f),
    'hs-pd-max': mpa_req(pd=bytes(508)),
    'hs-pd-over': mpa_req(pd=bytes(600)),
    'hs-short': mpa_req()[:15],
    'hs-empty': b'',
    'hs-bytes-after': mpa_req() + fpdu_after,
    'hs-two-requests': mpa_req() + mpa_req(),
}
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for cfg in (0x1, 0x0, 0x7, 0x9, 0x3):
    for name, segs in seeds.items():
        data = bytes([cfg]) + b''.join(rec(s, run=(i % 2 == 1)) for i, s in enumerate(segs))
        with open(os.path.join(out, 'seed-%02x-%s' % (cfg, name)), 'wb') as f:
            f.write(data)
    with open(os.path.join(out, 'seed-%02x-raw' % cfg), 'wb') as f:
        f.write(bytes([cfg]) + rec(b'\xff\xf0' + pay[:100], raw=True))
for cfg in (0x1, 0x3):
    for name, recs in acts.items():
        with open(os.path.join(out, 'seed-%02x-%s' % (cfg, name)), 'wb') as f:
            f.write(bytes([cfg]) + b''.join(recs))
for name, req in hands.items():
    follow = rec(tagged(0, T_STAG, T, pay[:64]), run=True) + rec(untagged(3, 0, 1, 0, pay[:16]), run=True)
    for cfg in (0x11, 0x31):
        with open(os.path.join(out, 'seed-%02x-%s' % (cfg, name)), 'wb') as f:
            f.write(bytes([cfg]) + rec(req, raw=True, run=True) + follow)
# The guest rejects a well-formed Request; 4, 8 and 12 connections.
for cfg, name in ((0x21, 'reject'), (0x41, 'conns-4'), (0x81, 'conns-8'), (0xc1, 'conns-12'), (0xc3, 'conns-12-reset')):
    recs = [rec(tagged(0, T_STAG, T, pay[:64]), run=True)]
    if name.endswith('reset'):
        recs.append(rec(b'', run=True, act=RESET))
    with open(os.path.join(out, 'seed-%02x-%s' % (cfg, name)), 'wb') as f:
        f.write(bytes([cfg]) + b''.join(recs))
