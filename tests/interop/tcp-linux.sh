#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Interop of the offload TCP with Linux's TCP over a TAP device in a private
# network namespace: passive and active open, 256 MiB each way byte-exact,
# orderly close, resets both ways, a lossy run (loss injected by the tool's
# own relay, not netem), and wscale/sack negotiation checked with `ss -ti`.
# usage: tcp-linux.sh TCP_TAP_PEER TCP_TAP_PEER_SAN LINUX_PEER_PY [MiB]
set -u
PEER=$1 PEER_SAN=$2 LPY=$3 MIB=${4:-256}
if [ "$(id -u)" != 0 ]; then
    echo "tcp-linux: needs root (network namespace + TAP); skipping"
    exit 77
fi
for t in ip python3 ss; do
    command -v $t >/dev/null || { echo "tcp-linux: $t missing; skipping"; exit 77; }
done
[ -c /dev/net/tun ] || { echo "tcp-linux: no /dev/net/tun; skipping"; exit 77; }

NS=rnic-tcp-$$
TAP=rtap$$
TAP=${TAP:0:15}
TMP=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
    ip netns del "$NS" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

NSX="ip netns exec $NS"
ip netns add "$NS" || exit 1
ip -n "$NS" link set lo up
ip -n "$NS" tuntap add dev "$TAP" mode tap || exit 1
$NSX sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip -n "$NS" addr add 10.77.0.1/24 dev "$TAP"
ip -n "$NS" link set "$TAP" up
LMAC=$($NSX cat /sys/class/net/"$TAP"/address)
N=$((MIB * 1024 * 1024))
FAILS=0

# run NAME ENGINE_ARGS -- LINUX_ARGS  (for "linux first", LINUX_ARGS gets --listen)
run() {
    local name=$1 order=$2 tool=$3; shift 3
    local eargs=() largs=()
    while [ "$1" != "--" ]; do eargs+=("$1"); shift; done; shift
    largs=("$@")
    echo "=== $name"
    local start=$(date +%s.%N) epid lpid erc lrc
    if [ "$order" = linux-first ]; then
        rm -f "$TMP/ready"
        $NSX python3 "$LPY" "${largs[@]}" --ready "$TMP/ready" > "$TMP/l.log" 2>&1 & lpid=$!
        PIDS+=($lpid)
        for _ in $(seq 100); do [ -e "$TMP/ready" ] && break; sleep 0.05; done
        $NSX "$tool" --tap "$TAP" --ip 10.77.0.2 --peer-ip 10.77.0.1 --peer-mac "$LMAC" \
            "${eargs[@]}" > "$TMP/e.log" 2>&1 & epid=$!
        PIDS+=($epid)
    else
        $NSX "$tool" --tap "$TAP" --ip 10.77.0.2 --peer-ip 10.77.0.1 --peer-mac "$LMAC" \
            "${eargs[@]}" > "$TMP/e.log" 2>&1 & epid=$!
        PIDS+=($epid)
        sleep 0.2
        $NSX python3 "$LPY" "${largs[@]}" > "$TMP/l.log" 2>&1 & lpid=$!
        PIDS+=($lpid)
    fi
    wait $epid; erc=$?
    wait $lpid; lrc=$?
    PIDS=()
    sed 's/^/  engine| /' "$TMP/e.log"
    sed 's/^/  linux | /' "$TMP/l.log"
    local dt=$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo "?")
    if [ $erc -eq 0 ] && [ $lrc -eq 0 ]; then
        echo "--- $name: PASS (${dt}s)"
    else
        echo "--- $name: FAIL (engine rc=$erc, linux rc=$lrc)"
        FAILS=$((FAILS + 1))
    fi
}

run "passive open: Linux client -> engine, $MIB MiB each way, orderly close" engine-first "$PEER" \
    --listen 7000 --send $N --recv $N --end close -- \
    --connect 10.77.0.2:7000 --send $N --recv $N --end close
run "active open: engine -> Linux server, $MIB MiB each way, orderly close" linux-first "$PEER" \
    --connect 7001 --send $N --recv $N --end close -- \
    --listen 7001 --bind 10.77.0.1 --send $N --recv $N --end close
run "engine resets after 1 MiB each way" engine-first "$PEER" \
    --listen 7002 --send 1048576 --recv 1048576 --end abort -- \
    --connect 10.77.0.2:7002 --send 1048576 --recv 1048576 --end expect-reset --no-ss-check
run "Linux resets after 1 MiB each way" engine-first "$PEER" \
    --listen 7003 --send 1048576 --recv 1048576 --end expect-reset -- \
    --connect 10.77.0.2:7003 --send 1048576 --recv 1048576 --end rst --no-ss-check
run "1% loss each way in the relay (sanitized engine), 32 MiB each way, active open" linux-first "$PEER_SAN" \
    --connect 7004 --send 33554432 --recv 33554432 --end close --loss 0.01 --seed 7 -- \
    --listen 7004 --bind 10.77.0.1 --send 33554432 --recv 33554432 --end close

echo "tcp-linux: $FAILS failed"
[ $FAILS -eq 0 ]
