#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark (suite bench): user-space RDMA, rnic <-> rnic against siw <-> siw in the
# same run on the same host, and host loopback TCP at the same MTU.
#   ib_write_bw -R 64 KiB and ib_write_lat -R 8 B, RNIC_BENCH_RUNS runs each
#   (default 3) in one boot per peer; medians; ratios rnic/siw and rnic/TCP.
# Both peers run on the lab's stream wire (RNIC_BENCH_WIRE=dgram for the tests'
# wire): the dgram wire's 10-frame socket queue, not the NIC, limits bulk there.
# Latency stays on the same wire: dgram is quicker for rnic's 8 B but not for
# siw's, and a loaded host hurts siw there more (docs/baselines.md).
# No captures by default (lab.py --no-pcap): filter-dump's per-frame write in the
# main loop that moves the frames halved rnic's bulk on this wire (docs/baselines.md);
# RNIC_BENCH_PCAP=1 captures and checks them as the tests do.
# Targets of the issue: bandwidth >= 50x siw, latency <= 1/5 of siw.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${RNIC_CACHE:-$HOME/.cache/rnic}
runs=${RNIC_BENCH_RUNS:-3}
iters=${RNIC_BENCH_ITERS:-300}
mtu=${RNIC_BENCH_MTU:-1500}
wire=${RNIC_BENCH_WIRE:-stream}
pcap=${RNIC_BENCH_PCAP:-0}
# The build the lab runs (lab.py: RNIC_QEMU or the cache's), named by its md5 in
# the output: figures belong to one binary.
qemu=$(md5sum "${RNIC_QEMU:-$cache/build/qemu/qemu-system-x86_64}" | cut -c1-8)
out=$cache/runs/bench-user-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
tools=""
for _ in $(seq 1 "$runs"); do tools="$tools write_bw:65536 write_lat:8"; done

lab() { # lab NAME NIC EXTRA...: one two-guest boot running every run
	local name=$1 nic=$2
	shift 2
	local cap=(--pcap-check-arg=--require-opcodes=0)
	[ "$pcap" = 1 ] || cap=(--no-pcap)
	echo "== $name: $runs x (ib_write_bw 64 KiB, ib_write_lat 8 B), $iters iterations, MTU $mtu," \
		"$wire wire, pcap $pcap, QEMU $qemu, host load $(cut -d' ' -f1-3 /proc/loadavg)"
	cut -d' ' -f1 /proc/loadavg >>"$out/load.txt"
	/usr/bin/python3 "$here/lab.py" --guests 2 --nic "$nic" --mtu "$mtu" --wire "$wire" --quiet \
		--timeout 900 --out "$out/$name" --env "RNIC_TOOLS=$tools" --env "RNIC_PERF_ITERS=$iters" \
		"$@" "${cap[@]}" --script "$here/guest/rnic-user-pair.sh"
}
# Above the device's default max-mtu (9216) the rnics need max-mtu=65000 (the
# largest it takes), as suite vm's rnic-l2-mtu65000 gives them; virtio-net
# guests take any MTU up to 65535 without it.
rnic_mtu=()
[ "$mtu" -le 9216 ] || rnic_mtu=(--qemu-arg=-global --qemu-arg=rnic.max-mtu=65000)
lab rnic rnic "${rnic_mtu[@]}"
lab siw virtio --env RNIC_SOFT=siw

# Host loopback TCP in a private network namespace, its lo at the lab's MTU.
echo "== host loopback TCP: iperf3 -t 5 in a network namespace, lo MTU $mtu"
tcp=()
for _ in $(seq 1 "$runs"); do
	tcp+=("$(unshare -n sh -c "ip link set lo mtu $mtu up && iperf3 -s -1 -D -p 5299 && sleep 0.5 &&
		iperf3 -c 127.0.0.1 -p 5299 -t 5 -J" |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9)')")
done
printf '%s\n' "${tcp[@]}" >"$out/tcp-gbps.txt"
cut -d' ' -f1 /proc/loadavg >>"$out/load.txt"

/usr/bin/python3 - "$out" <<'PY'
import os, statistics, sys
out = sys.argv[1]
def vals(peer, name, key):
    v = []
    for line in open(os.path.join(out, peer, 'results.txt')):
        f = line.split()
        if len(f) > 1 and f[1] == name:
            kv = dict(x.split('=', 1) for x in f[2:] if '=' in x)
            v.append(float(kv[key]))
    if not v:
        sys.exit('no %s in %s/results.txt' % (name, peer))
    return v
bw = {p: vals(p, 'ib_write_bw-' + p, 'gbps_avg') for p in ('rnic', 'siw')}
lat = {p: vals(p, 'ib_write_lat-' + p, 'usec_typical') for p in ('rnic', 'siw')}
tcp = [float(x) for x in open(os.path.join(out, 'tcp-gbps.txt'))]
med = statistics.median
print()
print('%-34s %12s %12s %10s' % ('', 'rnic', 'siw', 'rnic/siw'))
print('%-34s %12.1f %12.1f %9.2fx' % ('ib_write_bw 64 KiB, Mb/s (median)', med(bw['rnic']) * 1e3,
      med(bw['siw']) * 1e3, med(bw['rnic']) / med(bw['siw'])))
print('%-34s %12.1f %12.1f %9.2fx' % ('ib_write_lat 8 B typical, us (med)', med(lat['rnic']),
      med(lat['siw']), med(lat['rnic']) / med(lat['siw'])))
print('%-34s %12.1f' % ('host loopback TCP, Mb/s (median)', med(tcp) * 1e3))
print('rnic write_bw / host loopback TCP: %.4f' % (med(bw['rnic']) / med(tcp)))
print('runs: rnic bw %s, siw bw %s (Gb/s); rnic lat %s, siw lat %s (us); TCP %s (Gb/s)' %
      (bw['rnic'], bw['siw'], lat['rnic'], lat['siw'], tcp))
print('host load (1-min average) at the start of rnic, siw and the end: %s' %
      ', '.join(open(os.path.join(out, 'load.txt')).read().split()))
print('targets: bandwidth >= 50x siw (%s), latency <= 1/5 of siw (%s)' %
      ('met' if med(bw['rnic']) >= 50 * med(bw['siw']) else 'NOT met',
       'met' if med(lat['rnic']) * 5 <= med(lat['siw']) else 'NOT met'))
PY
echo "$wire wire, pcap $pcap, MTU $mtu, QEMU $qemu; run directory: $out"
