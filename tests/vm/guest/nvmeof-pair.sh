#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# NVMe over Fabrics on RDMA between two guests. Guest 1 is the nvmet-rdma
# target exporting a memory-backed null_blk namespace on the RDMA device's IP;
# guest 2 connects with nvme-rdma, writes 256 MiB of random data with O_DIRECT,
# reads it back and compares SHA-256, then disconnects, reconnects and checks
# the data again. RNIC_SOFT=siw|rxe picks a software stack over virtio-net
# (the reference run); with RNIC_NIC=rnic the rnic device's own ib_device is used.
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail
net_up
rdma_up
wait_peer
pin_peer_neigh

NQN=nqn.2026-11.invalid.rnic:lab
# This guest's RDMA stack, for the results (the peer may run the other one).
STACK=$RNIC_NIC
[ "$STACK" = rnic ] || STACK=${RNIC_SOFT:-siw}
PORT=4420
MIB=${RNIC_NVME_MIB:-256}

target() {
	nvmet_rdma_target "$NQN" $PORT
	say "target: $NQN on $RNIC_IP:$PORT (rdma), /dev/nullb0"
	# Serve until the host says it is done (a file on its output share).
	local end=$((SECONDS + 900))
	until [ -e "$RNIC_RUN_DIR/out2/done" ]; do
		[ $SECONDS -lt $end ] || fail "host never finished"
		sleep 1
	done
	dmesg | grep -iE "nvmet|rdma" | tail -5
	kernel_clean || fail "kernel oops/BUG/WARNING on the target"
	exit 0
}

connect() {
	local i
	for i in $(seq 1 60); do
		nvme connect -t rdma -a "$RNIC_PEER" -s $PORT -n "$NQN" \
			--hostnqn="nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)" \
			>/dev/null 2>&1 && break
		sleep 2
	done
	for i in $(seq 1 100); do
		DEVNODE=$(ls /dev/nvme*n1 2>/dev/null | head -1)
		[ -n "$DEVNODE" ] && return 0
		sleep 0.2
	done
	fail "nvme connect -t rdma $RNIC_PEER:$PORT: no namespace appeared"
}

# The connected queues' verbs objects as the rdma tool lists them (restrack):
# nvme-rdma keeps a fast-register MR pool per queue for the connection's life.
resources() {
	local sum o n
	sum=$(rdma resource show)
	echo "$sum"
	[ "$STACK" = rnic ] || return 0
	for o in pd cq qp cm_id mr; do
		n=$(rdma_res_count "$sum" $o)
		[ "${n:-0}" -gt 0 ] || fail "rdma resource show: no $o on the rnic device while connected"
	done
	rdma resource show mr | grep rnic | head -3
	result "nvmeof-rdma-resource-$STACK" "$(echo "$sum" | grep rnic | cut -d: -f3-)"
}

host() {
	local want got t0 t1
	trap 'touch /run/out/done' EXIT
	modprobe nvme-rdma || fail "nvme-rdma"
	connect
	say "connected: $DEVNODE ($(cat /sys/block/$(basename $DEVNODE)/size) sectors)"
	resources
	head -c $((MIB << 20)) /dev/urandom >/tmp/data || fail "random data"
	want=$(sha256sum </tmp/data | cut -d' ' -f1)
	t0=$(date +%s.%N)
	dd if=/tmp/data of="$DEVNODE" bs=1M oflag=direct status=none || fail "write $MIB MiB"
	t1=$(date +%s.%N)
	got=$(dd if="$DEVNODE" bs=1M count=$MIB iflag=direct status=none | sha256sum | cut -d' ' -f1) ||
		fail "read back"
	[ "$got" = "$want" ] || fail "read back: sha256 $got != $want"
	result "nvmeof-$STACK" write_mib=$MIB \
		write_mbps="$(echo "$MIB $t0 $t1" | awk '{printf "%.1f", $1*8*1.048576/($3-$2)}')" sha256=match
	nvme disconnect -n "$NQN" >/dev/null || fail "nvme disconnect"
	say "disconnected; reconnecting"
	connect
	got=$(dd if="$DEVNODE" bs=1M count=$MIB iflag=direct status=none | sha256sum | cut -d' ' -f1) ||
		fail "read after reconnect"
	[ "$got" = "$want" ] || fail "after reconnect: sha256 $got != $want"
	result "nvmeof-reconnect-$STACK" sha256=match
	nvme disconnect -n "$NQN" >/dev/null || fail "second disconnect"
	kernel_clean || fail "kernel oops/BUG/WARNING on the host"
	exit 0
}

if [ "$RNIC_ROLE" = server ]; then target; else host; fi
