#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The main job: boot two lab guests and run an RDMA demo between them, then print
# a table.
#   demo.sh [rnic]   two guests with -device rnic, user-space verbs through the
#                    rnic provider: ibv_devinfo, rping (data validated),
#                    ib_write_bw 64 KiB, ib_write_lat and ib_send_lat 8 B (-R)
#   demo.sh siw      the reference: Linux soft-iWARP over virtio-net
#   demo.sh rxe      soft-RoCE over virtio-net
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${RNIC_CACHE:-$HOME/.cache/rnic}
kind=${1:-${RNIC_DEMO_SOFT:-rnic}}
out=$cache/runs/demo-$kind-$(date +%Y%m%d-%H%M%S)
case "$kind" in
rnic)
	echo "rnic demo: two TCG guests with -device rnic, user-space RDMA (run directory $out)"
	/usr/bin/python3 "$here/lab.py" --guests 2 --nic rnic --quiet --timeout 600 --out "$out" \
		--env "RNIC_TOOLS=devinfo rping write_bw:65536 write_lat:8 send_lat:8" \
		--env RNIC_RPING_COUNT=100 --env RNIC_PERF_ITERS=300 \
		--pcap-check-arg=--require-opcodes=0,1,2,3 \
		--script "$here/guest/rnic-user-pair.sh"
	;;
siw | rxe)
	echo "rnic demo (reference): two TCG guests, $kind over virtio-net (run directory $out)"
	/usr/bin/python3 "$here/lab.py" --guests 2 --nic virtio --quiet --timeout 500 --out "$out" \
		--env "RNIC_SOFT=$kind" --script "$here/guest/soft-rdma-pair.sh"
	;;
*)
	echo "usage: demo.sh [rnic|siw|rxe]" >&2
	exit 2
	;;
esac
/usr/bin/python3 - "$out/results.txt" <<'PY'
import sys
rows = []
for line in open(sys.argv[1]):
    f = line.split()
    kv = dict(x.split('=', 1) for x in f[2:] if '=' in x)
    name = f[1]
    if name.startswith('devinfo'):
        rows.append((name, '%s: transport %s, port %s' % (kv['dev'], kv['transport'], kv['state'])))
    elif name.startswith('rping'):
        rows.append((name, '%s pings, data validated' % kv['pings']))
    elif '_bw' in name:
        rows.append((name, '%.1f Mb/s average (%s B x %s)' % (float(kv['gbps_avg']) * 1000, kv['size'], kv['iters'])))
    elif '_lat' in name:
        rows.append((name, '%s us typical, %s us average (%s B)' % (kv['usec_typical'], kv['usec_avg'], kv['size'])))
w = max(len(r[0]) for r in rows)
print()
print('%-*s  %s' % (w, 'test', 'result'))
print('%s  %s' % ('-' * w, '-' * 44))
for r in rows:
    print('%-*s  %s' % (w, r[0], r[1]))
PY
