#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seed corpus for fuzz-iwarp-dev (format in fuzz-iwarp-dev.c): legal and
hostile DDP/RDMAP segments aimed at the victim's registered memory (STags and
addresses from the harness), for each MPA configuration."""
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

def rec(seg, raw=False, run=False):
    return bytes([(1 if raw else 0) | (2 if run else 0)]) + struct.pack('>H', len(seg)) + seg

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
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for cfg in (0x1, 0x0, 0x7, 0x9, 0x3):
    for name, segs in seeds.items():
        data = bytes([cfg]) + b''.join(rec(s, run=(i % 2 == 1)) for i, s in enumerate(segs))
        with open(os.path.join(out, 'seed-%02x-%s' % (cfg, name)), 'wb') as f:
            f.write(data)
    with open(os.path.join(out, 'seed-%02x-raw' % cfg), 'wb') as f:
        f.write(bytes([cfg]) + rec(b'\xff\xf0' + pay[:100], raw=True))
