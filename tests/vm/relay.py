#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Impairment relay between two lab guests on unix dgram sockets (one Ethernet
frame per datagram). Seeded, so a run is reproducible: loss, duplication,
reordering, delay and payload corruption, optionally only for one Ethertype.

Guest A sends to --ra, guest B to --rb; frames are forwarded to --b and --a.
"""
import argparse
import heapq
import os
import random
import select
import socket
import struct
import sys
import time


def pcap_open(path):
    f = open(path, 'wb')
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    return f


def pcap_write(f, frame):
    t = time.time()
    f.write(struct.pack('<IIII', int(t), int((t % 1) * 1e6), len(frame), len(frame)))
    f.write(frame)


def tcp_payload(frame):
    """(TCP header offset, payload offset, payload end) of an IPv4/TCP frame
    with payload, else None. The end comes from the IP length: Ethernet pads."""
    if len(frame) < 14 + 20 + 20 + 1 or frame[12:14] != b'\x08\x00' or frame[23] != 6:
        return None
    tcp = 14 + (frame[14] & 0xf) * 4
    off = tcp + (frame[tcp + 12] >> 4) * 4
    end = min(len(frame), 14 + struct.unpack('!H', frame[16:18])[0])
    return (tcp, off, end) if off < end else None


def inet_csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def tcp_track(frame, snd_end):
    """Record how far this IPv4/TCP frame's sender has sent; returns its
    (src ip, sport, dst ip, dport) key, or None for anything else."""
    if len(frame) < 14 + 20 + 20 or frame[12:14] != b'\x08\x00' or frame[23] != 6:
        return None
    tcp = 14 + (frame[14] & 0xf) * 4
    sport, dport, sq = struct.unpack('!HHI', frame[tcp:tcp + 8])
    flags = frame[tcp + 13]
    end = min(len(frame), 14 + struct.unpack('!H', frame[16:18])[0])
    ln = end - (tcp + (frame[tcp + 12] >> 4) * 4) + (flags & 0x02 != 0) + (flags & 0x01 != 0)
    k = (bytes(frame[26:30]), sport, bytes(frame[30:34]), dport)
    nxt = (sq + ln) & 0xffffffff
    old = snd_end.get(k)
    if old is None or (nxt - old) & 0xffffffff < 0x80000000:
        snd_end[k] = nxt
    return k


def tcp_rst(src_mac, dst_mac, k, sq):
    """An Ethernet/IPv4/TCP RST from k[0]:k[1] to k[2]:k[3] with SEQ sq."""
    tcp = struct.pack('!HHIIBBHHH', k[1], k[3], sq, 0, 5 << 4, 0x04, 0, 0, 0)
    pseudo = k[0] + k[2] + struct.pack('!BBH', 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack('!H', inet_csum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 40, 0, 0x4000, 64, 6, 0, k[0], k[2])
    ip = ip[:10] + struct.pack('!H', inet_csum(ip)) + ip[12:]
    return dst_mac + src_mac + b'\x08\x00' + ip + tcp


def forge_resets(frame, sender, k, snd_end):
    """RSTs for both ends of frame's connection, each at the SEQ its receiver
    expects next (RFC 5961 §3.2: only an exact match resets; anything else
    draws a challenge ACK). Returns [('A'|'B' receiving guest, frame)]."""
    fwd_mac, back_mac = bytes(frame[6:12]), bytes(frame[0:6])
    rev = (k[2], k[3], k[0], k[1])
    to_src = sender
    to_dst = 'B' if sender == 'A' else 'A'
    out = [(to_dst, tcp_rst(fwd_mac, back_mac, k, snd_end[k]))]
    if rev in snd_end:
        out.append((to_src, tcp_rst(back_mac, fwd_mac, rev, snd_end[rev])))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument('--ra', required=True)
    p.add_argument('--rb', required=True)
    p.add_argument('--a', required=True)
    p.add_argument('--b', required=True)
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--loss', type=float, default=0.0)
    p.add_argument('--dup', type=float, default=0.0)
    p.add_argument('--reorder', type=float, default=0.0)
    p.add_argument('--reorder-delay', type=float, default=0.005)
    p.add_argument('--delay', type=float, default=0.0)
    p.add_argument('--corrupt', type=float, default=0.0,
                   help='probability of flipping one TCP payload byte (checksum fixed up)')
    p.add_argument('--corrupt-nth-tcp', type=int, default=0,
                   help='flip one payload byte of the Nth TCP frame that carries >= 64 payload bytes')
    p.add_argument('--only-ethertype', type=lambda s: int(s, 0), default=None)
    p.add_argument('--corrupt-from', choices=('A', 'B'), default=None,
                   help='--corrupt-nth-tcp counts only frames sent by this guest (A: guest 1)')
    p.add_argument('--rst-after', type=float, default=0.0,
                   help='seconds after the first TCP payload to or from --rst-port, '
                        'reset that connection mid-transfer: a forged RST to each side '
                        'at exactly the sequence number it expects next (once)')
    p.add_argument('--rst-port', type=int, default=0)
    p.add_argument('--pcap')
    a = p.parse_args()

    rng = random.Random(a.seed)
    socks = {}
    for name, path, dst in (('A', a.ra, a.b), ('B', a.rb, a.a)):
        if os.path.exists(path):
            os.unlink(path)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind(path)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        socks[s] = (name, dst)
    out = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    pcap = pcap_open(a.pcap) if a.pcap else None
    heap, seq = [], 0
    c = dict(rx=0, drop=0, dup=0, reorder=0, corrupt=0, tx=0)
    tcp_big = 0
    rst_t0 = None   # first payload frame on --rst-port; None after the reset: 0
    snd_end = {}    # (src ip, sport, dst ip, dport) -> highest SEQ+len sent
    last_report = time.time()

    def corrupt(frame):
        """Flip one byte of the TCP payload and fix the TCP checksum, so the frame
        reaches the layer above TCP (MPA) instead of being dropped by TCP.
        Returns None for a frame without TCP payload."""
        t = tcp_payload(frame)
        if not t:
            return None
        tcp, off, end = t
        b = bytearray(frame)
        b[rng.randrange(off, end)] ^= 0x5a
        b[tcp + 16:tcp + 18] = b'\0\0'
        seg = bytes(b[tcp:end])
        pseudo = bytes(b[26:34]) + struct.pack('!BBH', 0, 6, len(seg))
        b[tcp + 16:tcp + 18] = struct.pack('!H', inet_csum(pseudo + seg))
        return bytes(b)

    while True:
        now = time.time()
        timeout = max(0.0, heap[0][0] - now) if heap else 1.0
        r, _, _ = select.select(list(socks), [], [], timeout)
        for s in r:
            frame = s.recv(65536)
            c['rx'] += 1
            _, dst = socks[s]
            et = struct.unpack('!H', frame[12:14])[0] if len(frame) >= 14 else 0
            impair = a.only_ethertype is None or et == a.only_ethertype
            copies = 1
            if impair and rng.random() < a.loss:
                c['drop'] += 1
                continue
            if impair and rng.random() < a.dup:
                copies = 2
                c['dup'] += 1
            if impair and a.corrupt and rng.random() < a.corrupt:
                bad = corrupt(frame)
                if bad:
                    frame = bad
                    c['corrupt'] += 1
            from_ok = a.corrupt_from is None or socks[s][0] == a.corrupt_from
            t = tcp_payload(frame) if a.corrupt_nth_tcp and from_ok else None
            if t and t[2] - t[1] >= 64:
                tcp_big += 1
                if tcp_big == a.corrupt_nth_tcp:
                    frame = corrupt(frame)
                    c['corrupt'] += 1
                    print('relay: corrupted TCP frame #%d' % tcp_big, file=sys.stderr, flush=True)
            resets = []
            if a.rst_after and rst_t0 != 0:
                k = tcp_track(frame, snd_end)
                if k and tcp_payload(frame) and a.rst_port in (k[1], k[3]):
                    if rst_t0 is None:
                        rst_t0 = now
                    elif now - rst_t0 >= a.rst_after:
                        rst_t0 = 0
                        resets = forge_resets(frame, socks[s][0], k, snd_end)
                        c['rst'] = len(resets)
                        print('relay: reset the connection %s:%d <-> %s:%d (%d RSTs)' %
                              (socket.inet_ntoa(k[0]), k[1], socket.inet_ntoa(k[2]), k[3],
                               len(resets)), file=sys.stderr, flush=True)
            for _ in range(copies):
                due = now + a.delay
                if impair and rng.random() < a.reorder:
                    due += a.reorder_delay
                    c['reorder'] += 1
                seq += 1
                heapq.heappush(heap, (due, seq, dst, frame))
            for rdst, rframe in resets:
                seq += 1
                heapq.heappush(heap, (now, seq, a.a if rdst == 'A' else a.b, rframe))
        now = time.time()
        while heap and heap[0][0] <= now:
            _, _, dst, frame = heapq.heappop(heap)
            try:
                out.sendto(frame, dst)
                c['tx'] += 1
                if pcap:
                    pcap_write(pcap, frame)
            except OSError:
                c['drop'] += 1      # peer not bound yet or full: like a real wire
        if now - last_report >= 1.0:
            last_report = now
            print('relay: ' + ' '.join('%s=%d' % kv for kv in c.items()), file=sys.stderr, flush=True)
            if pcap:
                pcap.flush()


if __name__ == '__main__':
    main()
