#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The main job: boot two lab guests and run an RDMA demo between them (rping with
# data validation, write/read bandwidth, send latency), then print a table.
# Until the rnic device carries RDMA, the demo runs on the reference peer, siw,
# over virtio-net. RNIC_DEMO_SOFT=rxe selects soft-RoCE instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${RNIC_CACHE:-$HOME/.cache/rnic}
soft=${RNIC_DEMO_SOFT:-siw}
out=$cache/runs/demo-$(date +%Y%m%d-%H%M%S)
echo "rnic demo: two TCG guests, $soft over virtio-net (run directory $out)"
/usr/bin/python3 "$here/lab.py" --guests 2 --nic virtio --quiet --timeout 500 --out "$out" \
	--env "RNIC_SOFT=$soft" --script "$here/guest/soft-rdma-pair.sh"
/usr/bin/python3 - "$out/results.txt" <<'PY'
import sys
rows = []
for line in open(sys.argv[1]):
    f = line.split()
    kv = dict(x.split('=', 1) for x in f[2:] if '=' in x)
    name = f[1]
    if name.startswith('rping'):
        rows.append((name, '%s of 100 pings, data validated' % kv['pings']))
    elif '_bw' in name:
        rows.append((name, '%.1f Mb/s average (%s B x %s)' % (float(kv['gbps_avg']) * 1000, kv['size'], kv['iters'])))
    elif '_lat' in name:
        rows.append((name, '%s us typical, %s us average (%s B)' % (kv['usec_typical'], kv['usec_avg'], kv['size'])))
w = max(len(r[0]) for r in rows)
print()
print('%-*s  %s' % (w, 'test', 'result'))
print('%s  %s' % ('-' * w, '-' * 40))
for r in rows:
    print('%-*s  %s' % (w, r[0], r[1]))
PY
