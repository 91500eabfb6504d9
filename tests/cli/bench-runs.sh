#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ./rnic bench runs benchmarks: the same command (`./rnic bench`, setup skipped,
# no rebuild) lists the bench suite's benchmarks, then runs the cheapest,
# tcp-bench, at 1 MiB x 1 run, and its meson log must show it ran and passed
# with the benchmark's own output.
#   bench-runs.sh RNIC BUILDDIR
set -euo pipefail
rnic=$1
export RNIC_BUILD=$2
log=cli-bench-check
bench() { "$rnic" bench --no-setup --no-rebuild --logbase "$log" "$@"; }

list=$(bench --list)
echo "$list"
for b in tcp-bench iwarp-bench user-rdma-vs-siw; do
	grep -qx "$b" <<<"$list" || { echo "FAIL: ./rnic bench does not know $b"; exit 1; }
done

rc=0
out=$(bench --test-args '1 1' tcp-bench 2>&1) || rc=$?
echo "$out"
[ $rc = 0 ] || { echo "FAIL: ./rnic bench tcp-bench exited $rc"; exit 1; }
/usr/bin/python3 - "$RNIC_BUILD/meson-logs/$log.json" <<'PY'
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
names = [(r['name'], r['result']) for r in runs]
assert names == [('tcp-bench', 'OK')], 'benchmarks run: %r' % names
out = runs[0]['stdout']
assert 'tcp-bench: 1 MiB per run, 1 runs, medians' in out, out
assert 'MTU 1500, checksums on, rx copy (the real path)' in out, out
print('the log shows tcp-bench ran: %s' % out.splitlines()[0])
PY
