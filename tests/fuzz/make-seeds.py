#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seed corpus for fuzz-tcp: small op programs (format in fuzz-tcp.c) that
reach the handshake, data, SACK, FIN, RST and timer paths."""
import os, struct, sys

SYN, FIN, RST, PSH, ACK = 0x02, 0x01, 0x04, 0x08, 0x10
SYNOPT = bytes([2, 4, 0x05, 0xb4, 4, 2, 8, 10]) + struct.pack('>II', 1000, 0) + bytes([1, 3, 3, 7])
TSOPT = bytes([1, 1, 8, 10]) + struct.pack('>II', 1001, 0)

def seg(tup, flags, fix, win=0xffff, seq=0, ack=0, opt=b'', payload=b''):
    assert len(opt) % 4 == 0
    return (bytes([tup & 3, flags, fix]) + struct.pack('>HII', win, seq, ack) +
            bytes([len(opt) // 4]) + opt + struct.pack('>H', len(payload)) + payload)

def app(tup, op, arg=b''):
    return bytes([0xc0 | (tup << 3) | op]) + arg

def wait(ms):
    return bytes([0x80]) + struct.pack('>H', ms)

def raw(frame):
    return bytes([0x40]) + struct.pack('>H', len(frame)) + frame

def sack(s_off, e_off):
    return bytes([1, 1, 5, 10]) + struct.pack('>II', s_off, e_off)

seeds = {}
cfg = bytes([1, 0])
hs = seg(0, SYN, 0, seq=0x11111111, opt=SYNOPT) + seg(0, ACK, 3, opt=TSOPT)
seeds['passive'] = (cfg + hs + seg(0, PSH | ACK, 3, opt=TSOPT, payload=bytes(range(100))) +
                    app(0, 1, struct.pack('>H', 3000)) + wait(100) + seg(0, ACK, 3, opt=TSOPT) +
                    seg(0, FIN | ACK, 3, opt=TSOPT) + app(0, 2) + seg(0, ACK, 3, opt=TSOPT) + wait(2000))
seeds['active'] = (cfg + app(0, 0) + seg(0, SYN | ACK, 2, seq=0x22222222, opt=SYNOPT) +
                   app(0, 1, struct.pack('>H', 4000)) + seg(0, ACK, 3, opt=TSOPT) +
                   seg(0, PSH | ACK, 0x33, opt=TSOPT, payload=b'x' * 50) +
                   seg(0, PSH | ACK, 3, opt=TSOPT, payload=b'y' * 48) + app(0, 4) +
                   seg(0, ACK, 1, opt=sack(0, 0)) + seg(0, RST | ACK, 3))
seeds['nosack-zero-window'] = (bytes([0, 7]) + seg(1, SYN, 0, seq=5, opt=bytes([2, 4, 2, 0x18])) +
                               seg(1, ACK, 3, win=0) + app(1, 1, struct.pack('>H', 1000)) +
                               wait(1500) + wait(3000) + seg(1, ACK, 3, win=4000) + app(1, 3))
seeds['simultaneous'] = (cfg + app(2, 0) + seg(2, SYN, 0, seq=77, opt=SYNOPT) + seg(2, ACK, 3) +
                         app(2, 2) + seg(2, FIN | ACK, 3) + wait(600))
ip = bytes.fromhex('020000000001' '020000000002' '0800' '46000030000120004006' '0000'
                   '0a000002' '0a000001' '01010101') + bytes(24)
seeds['raw-frag-opts'] = cfg + raw(ip) + raw(b'\x02\x00\x00\x00\x00\x01' + bytes(8))

# mode bit 4: events by hand, partial reads (one octet after each readable
# segment: 37 * it octets consumed); what is left must outlive its frame
seeds['pull-partial'] = (bytes([1, 0x10]) + hs +
                         seg(0, PSH | ACK, 3, opt=TSOPT, payload=bytes(range(100))) + b'\x00' +
                         wait(100) +
                         seg(0, PSH | ACK, 3, opt=TSOPT, payload=b'z' * 50) + b'\x02' +
                         app(0, 4, struct.pack('>H', 1000)) +
                         seg(0, PSH | ACK, 0x63, opt=TSOPT, payload=b'o' * 48) + b'\x00' +
                         seg(0, PSH | ACK, 3, opt=TSOPT, payload=b'f' * 96) + b'\x01' +
                         seg(0, FIN | ACK, 3, opt=TSOPT, payload=b'e' * 20) + b'\x00' +
                         app(0, 4, struct.pack('>H', 9999)) + app(0, 2) + wait(2000))

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, 'seed-' + name), 'wb') as f:
        f.write(data)
