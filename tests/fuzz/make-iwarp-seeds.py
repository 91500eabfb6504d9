#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seed corpus for fuzz-iwarp (format in fuzz-iwarp.c): MPA Requests and FPDU
streams with CRC and markers carrying every RDMAP opcode, built independently
of the engine (bitwise CRC32c, markers placed by the RFC 5044 rule)."""
import os, struct, sys

def crc32c(b):
    c = 0xffffffff
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ (0x82f63b78 & -(c & 1))
    return c ^ 0xffffffff

def fpdus(ulpdus, crc, markers):
    out = bytearray()
    for u in ulpdus:
        body = struct.pack('>H', len(u)) + u + bytes((4 - (len(u) + 2) % 4) % 4)
        start = len(out)
        hdr = None
        for i, x in enumerate(body + b'\0\0\0\0'):
            if markers and len(out) % 512 == 0:
                ptr = 0 if hdr is None else len(out) - hdr
                out += struct.pack('>HH', 0, ptr)
            if hdr is None:
                hdr = len(out)
            out.append(x)
        c = crc32c(bytes(out[start:len(out) - 4])) if crc else 0
        out[-4:] = struct.pack('<I', c)
    return bytes(out)

def tagged(op, stag, to, data, last=True):
    return bytes([0xc1 if last else 0x81, 0x40 | op]) + struct.pack('>IQ', stag, to) + data

def untagged(op, qn, msn, mo=0, data=b'', inv=0, last=True):
    return bytes([0x41 if last else 0x01, 0x40 | op]) + struct.pack('>IIII', inv, qn, msn, mo) + data

rr = struct.pack('>IQIIQ', 0x100, 0x2000, 4096, 0x300, 0x4000)
term = bytes([0x11, 0x01, 0xc0, 0]) + struct.pack('>H', 34) + tagged(0, 0x77, 0x123, b'')
atomic = struct.pack('>IIIQQQQQ', 0, 1, 0x4400, 0x100, 5, 2**64 - 1, 0, 0)
segs = [tagged(0, 1, 0, b''), untagged(1, 1, 1, data=rr), tagged(2, 0x2200, 0x8000, b'x' * 600),
        untagged(3, 0, 1, data=b'hello'), untagged(4, 0, 2, data=b'inv', inv=0xabcd),
        untagged(5, 0, 3, data=b''), untagged(6, 0, 4, data=b'y' * 1300, inv=7),
        untagged(7, 2, 1, data=term), untagged(8, 0, 5, data=b'12345678'),
        untagged(10, 1, 2, data=atomic), untagged(11, 3, 1, data=struct.pack('>IQ', 1, 41)),
        tagged(0, 0x1234500, 0x10000, bytes(range(256)) * 4, last=False)]
req = b'MPA ID Req Frame' + bytes([0x50, 2, 0, 8, 0x80, 1, 0x40, 1]) + b'rnic'

seeds = {}
for crc in (0, 1):
    for mk in (0, 1):
        stream = fpdus(segs, crc, mk)
        cfg = crc | mk << 1 | 4
        seeds['stream-c%d-m%d' % (crc, mk)] = bytes([cfg | 0x40]) + stream
        seeds['req-c%d-m%d' % (crc, mk)] = bytes([cfg | 8 | 0x90]) + req + stream
seeds['rev1-reply'] = bytes([0]) + b'MPA ID Rep Frame' + bytes([0x60, 1, 0, 3]) + b'abc'
seeds['small-cap'] = bytes([0x31]) + fpdus(segs[:4], 1, 0)

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
print('make-iwarp-seeds: %d seeds in %s' % (len(seeds), out))
