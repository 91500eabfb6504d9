#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The rnic device as a NIC, two guests (guest 1 serves, guest 2 is the client):
# the interface comes up with the rnic driver, MTU changes on a running port,
# ping with full-size unfragmented packets, 256 MiB over TCP checked byte-exact
# with sha256 (both sides print their sum, the server compares), iperf3
# throughput, ethtool info/link/device counters, then rmmod (interface up),
# insmod, rmmod with dmesg free of BUG/WARNING/Oops/leak.
# With --nic virtio the same transfer and iperf3 run give the virtio-net baseline.
# RNIC_L2_MTUS="1500 9000": the ping, transfer, iperf3 and counters at each MTU
# in turn in one boot (the port changed while running), each a check
# (RNIC-PLAN / RNIC-CHECK, lab.py --tap) named mtuN; the unload is the check
# `unload`. Without it, one MTU (--mtu) and no checks announced.
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail

MB=${RNIC_XFER_MB:-256}
KO=${RNIC_GUEST_KO:-$RNIC_CACHE/build/guest-driver-6.12/rnic.ko}

# Deterministic data: any loss, duplication or reordering changes the sum.
# (seq dies of SIGPIPE when head has enough; that is not a failure.)
gen() { { seq 1 100000000 || true; } | head -c $((MB << 20)); }

# Making and hashing the data costs TCG about as much as sending it, so it
# is done once per boot and where the peer waits anyway: the client makes
# the file once and keeps it for every MTU; the server hashes the same
# stream in the background while the client makes it (server_expect_start),
# not after the transfer. In /run/l2 (the guest's /tmp shows the host's).
L2=/run/l2
mkdir -p $L2
client_data() { # client_data: $L2/data and its SHA-256 in $L2/data.sha256
	[ -e $L2/data.sha256 ] && return 0
	gen | tee $L2/data | sha256sum | cut -d' ' -f1 >$L2/data.sha256.part &&
		mv $L2/data.sha256.part $L2/data.sha256
}
server_expect_start() { # the expected SHA-256 into $L2/expect, once
	[ -e $L2/expect ] && return 0
	{ gen | sha256sum | cut -d' ' -f1 >$L2/expect.part && mv $L2/expect.part $L2/expect; } &
	EXPECT_PID=$!
}

dmesg_clean() {
	local bad
	dmesg | grep -E 'rnic|eth0'
	# An unsigned out-of-tree module taints the kernel: expected, not an error.
	bad=$(dmesg | grep -v 'module verification failed' |
		grep -E 'BUG|WARNING|Oops|leak|rnic.*(timed out|failed|refused)')
	[ -z "$bad" ] || { echo "$bad"; fail "kernel log: $1"; }
}

# Only what happens from here on is this test's business.
dmesg -C
net_up
if [ "$RNIC_NIC" = rnic ]; then
	drv=$(basename "$(readlink "/sys/class/net/$NETDEV/device/driver")")
	[ "$drv" = rnic ] || fail "$NETDEV is driven by '$drv', not rnic"
	# A running port gets new rings for a new MTU: go down to 1280 and back.
	ip link set "$NETDEV" mtu 1280 || fail "mtu 1280 on a running port"
	ip link set "$NETDEV" mtu "$RNIC_MTU" || fail "mtu $RNIC_MTU on a running port"
	max=$(ip -d link show "$NETDEV" | sed -n 's/.*maxmtu \([0-9]*\).*/\1/p')
	[ "${max:-0}" -ge 9000 ] || fail "maxmtu ${max:-?} < 9000"
fi
wait_peer

# peer_at_mtu MTU: both guests have set MTU (files on the output shares), so
# full-size frames pass both ways.
peer_at_mtu() {
	local f=$RNIC_RUN_DIR/out$((3 - RNIC_GUEST_ID))/mtu$1.up
	touch "$RNIC_OUT/mtu$1.up"
	for _ in $(seq 1 600); do
		[ -e "$f" ] && return 0
		sleep 0.2
	done
	fail "the peer never set MTU $1"
}

# l2_at MTU [N]: the port at MTU (N-th MTU of the boot: ports of its own).
l2_at() {
	local mtu=$1 port=$((7777 + ${2:-0})) iperf_port=$((5201 + ${2:-0})) TAG="$RNIC_NIC-mtu$1"
	local out rtt expect got bytes sent t0 t1 rx txf rxf
	if [ "$mtu" != "$(cat "/sys/class/net/$NETDEV/mtu")" ]; then
		ip link set "$NETDEV" mtu "$mtu" || fail "mtu $mtu on a running port"
	fi
	peer_at_mtu "$mtu"

	# Full-size packets with DF: proves frames of MTU + 14 bytes cross both ways.
	out=$(ping -c 10 -i 0.2 -M do -s $((mtu - 28)) "$RNIC_PEER") || { echo "$out"; fail "ping at MTU $mtu"; }
	rtt=$(echo "$out" | sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
	result "ping-$TAG" size=$((mtu - 28)) received=10 rtt_avg_ms="$rtt"

	if [ "$RNIC_ROLE" = server ]; then
		EXPECT_PID=
		server_expect_start
		# Listen first, so the client's clock runs only while data flows.
		timeout 300 nc -l -d $port >/tmp/recv || fail "nc receive"
		[ -z "$EXPECT_PID" ] || wait "$EXPECT_PID"
		expect=$(cat $L2/expect) || fail "no expected SHA-256 (generating the data failed)"
		got=$(sha256sum </tmp/recv | cut -d' ' -f1)
		bytes=$(stat -c %s /tmp/recv)
		rm -f /tmp/recv
		result "xfer-recv-$TAG" bytes="$bytes" sha256="$got"
		[ "$got" = "$expect" ] || fail "received data differ: $bytes bytes, sha256 $got, expected $expect"
		timeout 120 iperf3 -s -1 -p $iperf_port >/dev/null || fail "iperf3 server"
	else
		client_data || fail "generating the data"
		sent=$(cat $L2/data.sha256)
		t0=$(date +%s.%N)
		retry 150 timeout 300 nc -N "$RNIC_PEER" $port <$L2/data || fail "nc send"
		t1=$(date +%s.%N)
		result "xfer-send-$TAG" bytes=$((MB << 20)) sha256="$sent" \
			seconds="$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')" \
			mbit_s="$(awk -v a="$t0" -v b="$t1" -v mb="$MB" 'BEGIN {printf "%.1f", mb * 8 * 1.048576 / (b - a)}')"
		sleep 2
		out=$(retry 300 timeout 60 iperf3 -c "$RNIC_PEER" -p $iperf_port -t 10 -f m) || fail "iperf3 client"
		echo "$out"
		rx=$(echo "$out" | awk '/receiver/ {print $(NF-2); exit}')
		[ -n "$rx" ] || fail "iperf3 printed no receiver line"
		result "iperf3-$TAG" seconds=10 mbit_s="$rx"
	fi

	if [ "$RNIC_NIC" = rnic ]; then
		ip -s link show "$NETDEV"
		ethtool -i "$NETDEV" | grep -q '^driver: rnic$' || fail "ethtool -i: not rnic"
		ethtool "$NETDEV" | grep -q 'Link detected: yes' || fail "ethtool: no link"
		ethtool -S "$NETDEV" >/tmp/stats || fail "ethtool -S"
		cat /tmp/stats
		# The device's own counters (QUERY_STATS) saw this test's traffic.
		txf=$(awk '$1 == "port_tx_frames:" {print $2}' /tmp/stats)
		rxf=$(awk '$1 == "port_rx_frames:" {print $2}' /tmp/stats)
		[ "${txf:-0}" -gt 1000 ] && [ "${rxf:-0}" -gt 1000 ] ||
			fail "device counts ${txf:-no} TX and ${rxf:-no} RX frames"
		result "ethtool-$TAG" port_tx_frames="$txf" port_rx_frames="$rxf"
	fi
}

# unload: traffic stopped, interface still up: unload, load again, unload.
unload() {
	rmmod rnic || fail "rmmod after traffic"
	insmod "$KO" || fail "insmod again"
	lab_netdev >/dev/null || fail "no interface after reload"
	rmmod rnic || fail "second rmmod"
	# Every vector was given back.
	! grep -q rnic /proc/interrupts || fail "rnic interrupts left after rmmod"
	dmesg_clean "after unload"
	result "unload-$RNIC_NIC-mtu$(echo "${RNIC_L2_MTUS:-$RNIC_MTU}" | tr ' ' -)" ok=1
}

if [ -z "${RNIC_L2_MTUS:-}" ]; then
	l2_at "$RNIC_MTU"
	[ "$RNIC_NIC" != rnic ] || unload
	exit 0
fi
# Each check in a subshell (fail ends only that check); the unload last.
plan=()
for m in $RNIC_L2_MTUS; do
	plan+=("mtu$m")
done
[ "$RNIC_NIC" = rnic ] && plan+=(unload)
echo "RNIC-PLAN ${plan[*]}"
FAILED=0 n=0
for m in $RNIC_L2_MTUS; do
	say "=== mtu$m ==="
	if (l2_at "$m" $n); then
		echo "RNIC-CHECK ok mtu$m"
	else
		echo "RNIC-CHECK fail mtu$m"
		FAILED=$((FAILED + 1))
	fi
	n=$((n + 1))
done
if [ "$RNIC_NIC" = rnic ]; then
	say "=== unload ==="
	if (unload); then
		echo "RNIC-CHECK ok unload"
	else
		echo "RNIC-CHECK fail unload"
		FAILED=$((FAILED + 1))
	fi
fi
[ $FAILED = 0 ] || fail "$FAILED of ${#plan[@]} checks failed"
exit 0
