#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Linux-socket side of the TCP interop test: moves the same byte pattern as
tcp-tap-peer.c (direction 1 towards us, 0 from us), checks it byte for byte,
records `ss -tin` while the connection is up and checks wscale and sack."""
import argparse, fcntl, socket, struct, subprocess, sys, termios, threading, time

PERIOD = 65521

def pattern(d):
    base = bytes(((k * 31 + (k >> 8) * 7 + d * 101) & 0xff) for k in range(PERIOD))
    return base * 3

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--listen', type=int)
    ap.add_argument('--connect')
    ap.add_argument('--bind', default='0.0.0.0')
    ap.add_argument('--send', type=int, default=0)
    ap.add_argument('--recv', type=int, default=0)
    ap.add_argument('--end', default='close', choices=['close', 'rst', 'expect-reset'])
    ap.add_argument('--ready')
    ap.add_argument('--no-ss-check', action='store_true', help='short runs may end before ss looks')
    a = ap.parse_args()
    if a.listen:
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((a.bind, a.listen))
        ls.listen(1)
        if a.ready:
            open(a.ready, 'w').close()
        ls.settimeout(60)
        s, peer = ls.accept()
    else:
        host, port = a.connect.rsplit(':', 1)
        s = socket.create_connection((host, int(port)), timeout=60)
    s.settimeout(120)
    tx, rx = pattern(0), pattern(1)   # tcp-tap-peer checks pat[0] and sends pat[1]
    errors = []

    def sender():
        off = 0
        try:
            while off < a.send:
                n = min(65536, a.send - off)
                k = off % PERIOD
                s.sendall(tx[k:k + n])
                off += n
        except OSError as e:
            errors.append('send: %s' % e)

    th = threading.Thread(target=sender)
    th.start()
    got, k, ss_out = 0, 0, ''
    t0 = time.time()
    try:
        while got < a.recv:
            b = s.recv(min(65536, a.recv - got))
            if not b:
                errors.append('EOF after %d of %d bytes' % (got, a.recv))
                break
            k = got % PERIOD
            if b != rx[k:k + len(b)]:
                errors.append('mismatch near offset %d' % got)
                break
            got += len(b)
            if not ss_out and got > a.recv // 4:
                ss_out = subprocess.run(['ss', '-tin', 'state', 'established'],
                                        capture_output=True, text=True).stdout
    except OSError as e:
        errors.append('recv: %s' % e)
    th.join()
    dt = time.time() - t0
    if not ss_out:
        ss_out = subprocess.run(['ss', '-tin', 'state', 'established'],
                                capture_output=True, text=True).stdout
    print('linux-peer: ss -tin:\n' + ss_out.strip())
    info = ' '.join(ss_out.split())
    # iproute2 6.1's ss prints wscale but (on this kernel) no "ts"/"sack" words,
    # so the SACK/timestamp bits are also read from TCP_INFO.tcpi_options.
    opts = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[5]
    print('linux-peer: tcpi_options 0x%x (ts=%d sack=%d wscale=%d)' %
          (opts, opts & 1, (opts >> 1) & 1, (opts >> 2) & 1))
    if not a.no_ss_check:
        if 'wscale:' not in info:
            errors.append('wscale not shown by ss -ti')
        if (opts & 7) != 7:
            errors.append('ts/sack/wscale not all negotiated (tcpi_options 0x%x)' % opts)
    print('linux-peer: received %d sent %d bytes in %.2f s (%.1f MB/s)' %
          (got, a.send, dt, max(got, a.send) / 1e6 / dt if dt > 0 else 0))
    if a.end == 'close':
        s.shutdown(socket.SHUT_WR)
        b = s.recv(1)
        if b != b'':
            errors.append('expected orderly EOF from the engine')
        s.close()
    elif a.end == 'rst':
        # wait until everything we sent is acked, then reset (SO_LINGER 0)
        for _ in range(3000):
            if struct.unpack('i', fcntl.ioctl(s, termios.TIOCOUTQ, b'\0' * 4))[0] == 0:
                break
            time.sleep(0.01)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
        s.close()
    else:
        try:
            b = s.recv(1)
            errors.append('expected a reset, got %r' % b)
        except ConnectionResetError:
            print('linux-peer: connection reset by peer, as expected')
        s.close()
    if errors:
        print('linux-peer: FAIL: ' + '; '.join(errors))
        return 1
    print('linux-peer: ok')
    return 0

if __name__ == '__main__':
    sys.exit(main())
