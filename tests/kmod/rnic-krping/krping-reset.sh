#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Lab guest script: resets in the middle of kernel RDMA traffic between two
# rnic guests, then a fresh connection that must verify every byte.
#   RNIC_RESET=peer: the lab's relay (--relay --rst-after S --rst-port 18522)
#     forges a TCP RST to each side of the running rnic_krping connection.
#   RNIC_RESET=device: guest 1 unbinds rnic (remove() resets the device
#     through its reset register), resets the PCI function too when the
#     function has a PCI reset method (sysfs reset), binds it again and
#     brings its interface back up.
# While the first run is live, both guests print `rdma link` and
# `rdma resource show` (qp, cq, mr) and require the rnic device and non-zero
# object counts. Afterwards: a second rnic_krping on a new port passes, and
# dmesg shows no BUG/WARNING/Oops/hung task on either side.
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail
KO=${RNIC_KRPING_KO:-$RNIC_CACHE/build/kmod-rnic-krping-6.12/rnic_krping.ko}
[ -f "$KO" ] || fail "no $KO: run scripts/setup/guest-driver.sh"
MODE=${RNIC_RESET:?RNIC_RESET=peer or device}

dmesg -C
net_up
modprobe rdma_cm || fail "modprobe rdma_cm"
[ -n "$(rdma link show)" ] || { dmesg | grep -iE 'rnic|rdma'; fail "no RDMA device"; }
wait_peer
pin_peer_neigh

# krping PORT ARGS...: one rnic_krping run in this guest's role; the client
# retries while the server does not listen yet. Sets KRC (insmod status).
krping() {
	local port=$1 end=$((SECONDS + 240))
	shift
	if [ "$RNIC_ROLE" = server ]; then
		KRC=0
		insmod "$KO" role=server addr="$RNIC_IP" port="$port" "$@" || KRC=$?
		return
	fi
	while :; do
		sleep 3
		KRC=0
		timeout 200 insmod "$KO" role=client addr="$RNIC_PEER" port="$port" "$@" || KRC=$?
		dmesg | grep -q 'rnic_krping: no connection' || return
		[ $SECONDS -lt $end ] || fail "no connection to the server on port $port"
		dmesg -C
	done
}

# The verbs objects of the running connection, as rdma tool sees them.
show_resources() {
	local sum n
	rdma link show
	sum=$(rdma resource show)
	echo "$sum"
	rdma resource show qp
	rdma resource show cq
	rdma resource show mr
	echo "$sum" | grep -q rnic || fail "rdma resource show lists no rnic device"
	for o in qp cq pd cm_id; do
		n=$(rdma_res_count "$sum" $o)
		say "rdma resource: $o $n"
		[ "${n:-0}" -gt 0 ] || fail "rdma resource show: no $o on the rnic device during rnic_krping"
	done
	# rnic_krping's data uses the PD's DMA lkey; its only MRs are short-lived
	# per-round FRWR MRs: sample a while and report what was seen (in two
	# lab runs none was caught, so this is logged, not required).
	local end=$((SECONDS + 5))
	n=0
	while [ $SECONDS -lt $end ] && [ "$n" = 0 ]; do
		n=$(rdma resource show mr | grep -c rnic)
	done
	rdma resource show mr
	result "rdma-resource-$RNIC_ROLE" "$(echo "$sum" | grep rnic | cut -d: -f3-) frwr_mr_seen=$n"
}

# Reset this guest's rnic under its open connection: unbind (the ib_device
# goes away; ULPs get DEVICE_REMOVAL), function reset, bind, interface back.
device_reset() {
	local bdf
	bdf=$(basename "$(readlink -f "/sys/class/net/$NETDEV/device")")
	say "device reset of $bdf with the connection open"
	echo "$bdf" > /sys/bus/pci/drivers/rnic/unbind || fail "unbind $bdf"
	# The sysfs reset exists only with a PCI reset method; the lab's rnic has
	# none (no FLR capability, integrated on the q35 root bus). Then the
	# reset is the driver's own: remove() wrote the device's reset register.
	if [ -e "/sys/bus/pci/devices/$bdf/reset" ]; then
		echo 1 > "/sys/bus/pci/devices/$bdf/reset" || fail "PCI function reset of $bdf"
		say "PCI function reset of $bdf done"
	else
		say "no PCI reset method for $bdf: the unbind's device reset (RNIC reset register) stands"
	fi
	echo "$bdf" > /sys/bus/pci/drivers/rnic/bind || fail "bind $bdf"
	for _ in $(seq 1 50); do
		NETDEV=$(lab_netdev) && [ -n "$(rdma link show)" ] && break
		sleep 0.2
	done
	[ -n "$(rdma link show)" ] || fail "no RDMA device after the reset"
	ip link set "$NETDEV" mtu "$RNIC_MTU" && ip addr add "$RNIC_IP/24" dev "$NETDEV" &&
		ip link set "$NETDEV" up || fail "interface after the reset"
	pin_peer_neigh
	say "rnic back after the reset: $(rdma link show)"
}

say "phase 1: rnic_krping under a $MODE reset"
krping 18522 max_size=1048576 iters=1000 timeout_ms=60000 &
kpid=$!
# Connected once rdma tool shows a QP in RTS (the module prints nothing then).
for _ in $(seq 1 180); do
	rdma resource show qp | grep -q 'state RTS' && break
	dmesg | grep -q 'rnic_krping: RESULT' && break
	sleep 1
done
rdma resource show qp | grep -q 'state RTS' || fail "first rnic_krping never connected"
show_resources
if [ "$MODE" = device ] && [ "$RNIC_ROLE" = server ]; then
	# Reset in the middle of the traffic, not at its start.
	wait_fpdus 1000 120
	device_reset
fi
wait $kpid
line=$(dmesg | grep 'rnic_krping: RESULT' | tail -1)
echo "$line"
dmesg | grep -E 'rnic' | tail -25
echo "$line" | grep -q 'ok=0' || fail "first rnic_krping did not see the $MODE reset: $line"
result "krping-$MODE-reset-$RNIC_ROLE" "${line#*RESULT }"
bad=$(dmesg | grep -v 'module verification failed' | grep -E 'BUG|WARNING|Oops|hung task')
[ -z "$bad" ] || { echo "$bad"; fail "kernel log after the $MODE reset"; }

say "phase 2: a new connection after the $MODE reset"
dmesg -C
# The client connects once the server is through phase 1 (its device back
# after a device reset), not after a fixed pause.
if [ "$RNIC_ROLE" = server ]; then
	touch "$RNIC_OUT/phase2.ready"
else
	for _ in $(seq 1 1500); do
		[ -e "$RNIC_RUN_DIR/out1/phase2.ready" ] && break
		sleep 0.2
	done
	[ -e "$RNIC_RUN_DIR/out1/phase2.ready" ] || fail "the server never reached phase 2"
fi
krping 18523 max_size=1048576 iters=2
line=$(dmesg | grep 'rnic_krping: RESULT' | tail -1)
echo "$line"
[ "$KRC" = 0 ] && echo "$line" | grep -q 'ok=1' || fail "rnic_krping after the $MODE reset (rc $KRC)"
result "krping-after-$MODE-reset-$RNIC_ROLE" "${line#*RESULT }"
rmmod rnic_krping || fail "rmmod rnic_krping"
bad=$(dmesg | grep -v 'module verification failed' | grep -E 'BUG|WARNING|Oops|hung task')
[ -z "$bad" ] || { echo "$bad"; fail "kernel log after the second connection"; }
exit 0
