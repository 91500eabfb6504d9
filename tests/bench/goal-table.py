#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 18's goal table from one `./rnic bench` run.

Reads meson's benchmark log (BUILD/meson-logs/benchlog.json: every
benchmark's stdout) and prints one row per measure of the issue: the
figure of this run with the host load its benchmark reported, or "not
measured" and why.  Ratios are formed only from figures of this run.

    goal-table.py BENCHLOG.json
"""
import json
import re
import sys


def load(path):
    out = {}
    try:
        for line in open(path):
            t = json.loads(line)
            out[t['name']] = (t['result'], t.get('stdout') or '')
    except OSError as e:
        sys.exit('goal-table: %s' % e)
    return out


def results(text):
    """RESULT lines of rnic-devbench: [(kind, {key: value})]."""
    r = []
    for line in text.splitlines():
        if line.startswith('RESULT '):
            f = line.split()
            r.append((f[1], dict(x.split('=', 1) for x in f[2:] if '=' in x)))
    return r


def devbench(text):
    d = {'device': {}, 'wire_busy': {}, 'wire_idle': {}, 'tcp': {}, 'memcpy': {}, 'load': None, 'idle': None}
    for kind, kv in results(text):
        if kind == 'device' and kv.get('idle', '0') == '0':
            d['device'][int(kv['mtu'])] = (float(kv['gbps']), float(kv['cpu_s_per_gb']))
        elif kind == 'idle':
            d['idle'] = (int(kv['conns']), int(kv['mtu']), float(kv['cpu_ratio']), float(kv['gbps_ratio']))
        elif kind == 'wire':
            key = 'wire_busy' if kv['busy'] != '0' else 'wire_idle'
            d[key][int(kv['frame'])] = float(kv['gbps'])
        elif kind == 'tcp':
            d['tcp'][int(kv['mtu'])] = float(kv['gbps'])
        elif kind == 'memcpy':
            d['memcpy'][int(kv.get('mtu', 0))] = float(kv['gbps'])     # 0: any MTU
        elif kind == 'load':
            d['load'] = '%s -> %s' % (kv['start'], kv['end'])
    return d


def user_bench(text):
    """bench-user.sh's summary: Gb/s, us, MTU, load."""
    u = {}
    m = re.search(r'ib_write_bw 64 KiB, Mb/s \(median\)\s+([\d.]+)\s+([\d.]+)', text)
    if m:
        u['bw_rnic'], u['bw_siw'] = float(m.group(1)) / 1e3, float(m.group(2)) / 1e3
    m = re.search(r'ib_write_lat 8 B typical, us \(med\)\s+([\d.]+)\s+([\d.]+)', text)
    if m:
        u['lat_rnic'], u['lat_siw'] = float(m.group(1)), float(m.group(2))
    m = re.search(r'host loopback TCP, Mb/s \(median\)\s+([\d.]+)', text)
    if m:
        u['tcp'] = float(m.group(1)) / 1e3
    m = re.search(r'MTU (\d+),', text)
    if m:
        u['mtu'] = int(m.group(1))
    m = re.search(r'host load \(1-min average\)[^:]*: (.*)', text)
    if m:
        u['load'] = m.group(1).strip()
    return u


def iwarp_bench(text):
    """iwarp-bench's per-case lines: {(crc, mtu): (GB/s, % of hot memcpy)}."""
    e = {}
    for m in re.finditer(r'CRC (on|off)\s+MTU\s+(\d+):\s+([\d.]+) GB/s \| memcpy hot\s+([\d.]+) GB/s, '
                         r'ratio\s+([\d.]+) %', text):
        e[(m.group(1), int(m.group(2)))] = (float(m.group(3)), float(m.group(5)))
    return e


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    log = load(sys.argv[1])
    rows = []

    def row(key, what, figure, target):
        rows.append((key, what, figure, target))

    def missing(name):
        if name not in log:
            return 'not measured: benchmark %s was not run' % name
        if log[name][0] != 'OK':
            return 'not measured: benchmark %s ended %s' % (name, log[name][0])
        return None

    dv = devbench(log['rnic-devbench'][1]) if not missing('rnic-devbench') else None
    ub = user_bench(log['user-rdma-vs-siw'][1]) if not missing('user-rdma-vs-siw') else {}
    ib = iwarp_bench(log['iwarp-bench'][1]) if not missing('iwarp-bench') else None
    dv_load = 'load %s' % dv['load'] if dv and dv['load'] else ''
    ub_load = 'load at rnic, siw, end: %s' % ub['load'] if ub.get('load') else ''

    # W: the guests' ib_write_bw over the wire pump with two busy threads.
    frames = sorted(dv['wire_busy']) if dv else []
    for label, frame in (('F = 1514', 1514), ('largest frame', frames[-1] if frames else None)):
        why = missing('rnic-devbench') or missing('user-rdma-vs-siw')
        if not why and 'bw_rnic' not in ub:
            why = 'not measured: user-rdma-vs-siw printed no ib_write_bw summary'
        if not why and frame not in dv['wire_busy']:
            why = ('not measured: rnic-devbench measured no Wire(%d)' % frame if frame else
                   'not measured: rnic-devbench ran without its anchors')
        if not why and ub.get('mtu', 1500) + 14 != frame:
            why = ('not measured: the guests ran at MTU %d, Wire(%d) is MTU %d '
                   '(RNIC_BENCH_MTU=%d for this row)' % (ub.get('mtu', 1500), frame, frame - 14, frame - 14))
        fig = why or ('%.3f = %.2f Gb/s / %.2f Gb/s (ib_write_bw -R 64 KiB x 300 iterations, not -D 10; guests: %s; pump: %s)' % (
            ub['bw_rnic'] / (8 * dv['wire_busy'][frame]), ub['bw_rnic'], 8 * dv['wire_busy'][frame], ub_load, dv_load))
        row('W', 'rnic ib_write_bw / Wire(F), 2 busy threads, %s' % label, fig, '>= 0.5')

    # T: the same figure over host loopback TCP at the guests' MTU.
    why = missing('user-rdma-vs-siw') or (None if 'tcp' in ub and 'bw_rnic' in ub else
                                          'not measured: user-rdma-vs-siw printed no TCP figure')
    row('T', 'rnic ib_write_bw / host loopback TCP', why or '%.3f = %.2f / %.2f Gb/s (lo MTU %d; %s)' % (
        ub['bw_rnic'] / ub['tcp'], ub['bw_rnic'], ub['tcp'], ub.get('mtu', 1500), ub_load), '>= 0.5')

    # E: the engine back to back, CRC on, over hot memcpy.
    why = missing('iwarp-bench')
    for mtu in (1500, 9000):
        fig = why
        if not fig:
            fig = ('%.1f %% (%.2f GB/s; thread CPU time, the sim link\'s frame copy included)' % (
                ib[('on', mtu)][1], ib[('on', mtu)][0]) if ('on', mtu) in ib else
                'not measured: iwarp-bench ran no CRC-on case at MTU %d' % mtu)
        row('E', 'engine, CRC on, / hot memcpy, MTU %d' % mtu, fig, '>= 20 %' if mtu == 9000 else '-')
    fig = why or ('%.1f %% (%.2f GB/s; MTU 65000, FPDUs of 64,948 octets)' % (
        ib[('on', 65000)][1], ib[('on', 65000)][0]) if ('on', 65000) in ib else
        'not measured: iwarp-bench ran no CRC-on case at MTU 65000')
    row('E', 'engine, CRC on, / hot memcpy, 64 KiB FPDUs', fig, '>= 35 %')

    # L: latency against siw's in the same run.
    why = missing('user-rdma-vs-siw') or (None if 'lat_rnic' in ub else
                                          'not measured: user-rdma-vs-siw printed no latency')
    row('L', 'ib_write_lat -R 8 B rnic / siw', why or (
        '%.2f = %.1f / %.1f us (typical, medians of runs; p99 not printed by the guests\' script; %s)' % (
            ub['lat_rnic'] / ub['lat_siw'], ub['lat_rnic'], ub['lat_siw'], ub_load)), '<= 1/8')
    # Q: the engine's accounting counter (QUERY_STATS conn_mem_bytes) over idle QPs.
    why = missing('qp-mem')
    if not why:
        q = re.findall(r'^(\d+) idle QPs, device (\w): ([\d.]+) B per QP', log['qp-mem'][1], re.M)
        why = None if q else 'not measured: qp-mem printed no figure'
    row('Q', 'device memory per idle connected QP', why or '; '.join(
        '%s QPs %s B' % (n, b) for n, side, b in q if side == 'A') + ' (simulated pair, engine counter)',
        '<= 4 KiB')
    row('S', 'connected QPs between two guests, all carrying traffic',
        'not measured by the bench: suite vm\'s rnic-user (subtest ucmatose-256x4) carries 256', '4096')
    why = missing('rnic-devbench') or (None if dv['idle'] else
                                       'not measured: rnic-devbench ran without --idle-conns')
    row('F', 'per-frame cost, 1024 idle connections / none', why or (
        '%.2f with %d idle connections (device only: QEMU CPU per GB at MTU %d; GB/s ratio %.2f; %s)' % (
            dv['idle'][2], dv['idle'][0], dv['idle'][1], dv['idle'][3], dv_load)), '<= 1.1')
    why = missing('user-rdma-vs-siw') or (None if 'bw_siw' in ub else 'not measured')
    row('x', 'context: rnic ib_write_bw / siw\'s, same MTU', why or '%.1fx = %.2f / %.3f Gb/s (MTU %d; %s)' % (
        ub['bw_rnic'] / ub['bw_siw'], ub['bw_rnic'], ub['bw_siw'], ub.get('mtu', 1500), ub_load), '-')

    # The device alone (no TCG) against the anchors measured beside it.
    why = missing('rnic-devbench')
    if why:
        row('D', 'device only (two QEMUs, -accel qtest)', why, '-')
    else:
        for mtu, (g, cpu) in sorted(dv['device'].items()):
            f = mtu + 14
            parts = ['%.3f GB/s, %.2f CPU s/GB' % (g, cpu)]
            if f in dv['wire_idle']:
                parts.append('/ Wire(%d) %.3f (idle) %.3f (2 busy)' % (
                    f, g / dv['wire_idle'][f], g / dv['wire_busy'][f]))
            if mtu in dv['tcp']:
                parts.append('/ TCP %.3f' % (g / dv['tcp'][mtu]))
            mc = dv['memcpy'].get(mtu, dv['memcpy'].get(0))
            if mc:
                parts.append('/ hot memcpy %.4f' % (g / mc))
            row('D', 'device only, 1 MiB Writes 16 deep, MTU %d' % mtu, ', '.join(parts) + ' (%s)' % dv_load, '-')

    print('\nissue 18 goal table (this run; medians; ratios only of figures of this run)')
    w = max(len(r[1]) for r in rows)
    print('  %s  %-*s  %-8s  %s' % (' ', w, 'measure', 'target', 'this run'))
    for key, what, fig, target in rows:
        print('  %s  %-*s  %-8s  %s' % (key, w, what, target, fig))
    return 0


if __name__ == '__main__':
    sys.exit(main())
