#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# NVMe over Fabrics on RDMA between two guests. The target guest is the
# nvmet-rdma target exporting a memory-backed null_blk namespace on the RDMA
# device's IP; the host guest connects with nvme-rdma, writes RNIC_NVME_MIB (256)
# MiB of random data with O_DIRECT, reads it back and compares SHA-256, then
# disconnects, reconnects and checks the data again. RNIC_SOFT=siw|rxe picks a
# software stack over virtio-net (the reference run); with RNIC_NIC=rnic the
# rnic device's own ib_device is used.
# Guest 1 is the target, guest 2 the host. RNIC_NVME_BOTH_WAYS=1 then swaps the
# roles in the same boot (guest 2 the target on port 4421): with one rnic and
# one siw guest, each stack is target once and host once. Each direction is a
# check (RNIC-PLAN / RNIC-CHECK, for lab.py --tap) named nvmeof-TARGET-HOST by
# the two guests' stacks, whose target port must carry RDMA Write, Read
# Request/Response, Send and Send with Invalidate.
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
MIB=${RNIC_NVME_MIB:-256}

# target DONE_FILE PORT: serve until the host says it is done (a file on its
# output share).
target() {
	nvmet_rdma_target "$NQN" "$2"
	say "target: $NQN on $RNIC_IP:$2 (rdma), /dev/nullb0"
	local end=$((SECONDS + 900))
	until [ -e "$1" ]; do
		[ $SECONDS -lt $end ] || fail "host never finished"
		sleep 1
	done
	dmesg | grep -iE "nvmet|rdma" | tail -5
	kernel_clean || fail "kernel oops/BUG/WARNING on the target"
	[ "$(cat "$1")" = ok ] || fail "the host failed"
	exit 0
}

connect() {
	local i
	for i in $(seq 1 60); do
		nvme connect -t rdma -a "$RNIC_PEER" -s "$PORT" -n "$NQN" \
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

# host DONE_FILE PORT: the host's whole run; DONE_FILE (on this guest's share)
# tells the target ok or fail.
host() {
	local want got t0 t1
	PORT=$2
	echo fail >/tmp/nvme-host-result
	# Written whole, then renamed: the target never reads it half written.
	trap 'cp /tmp/nvme-host-result "$1.new" && mv "$1.new" "$1"' EXIT
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
	rm -f /tmp/data
	kernel_clean || fail "kernel oops/BUG/WARNING on the host"
	echo ok >/tmp/nvme-host-result
	exit 0
}

# Direction N (1, 2): guest N is the target on port 4419+N, the other guest
# the host; its done file is on the host's share. Direction 1 keeps the names
# of the one-way runs (port 4420, out2/done).
directions=1
[ "${RNIC_NVME_BOTH_WAYS:-0}" = 1 ] && directions="1 2"
plan=()
for d in $directions; do
	plan+=("nvmeof-$(stack_of $d)-$(stack_of $((3 - d)))")
done
echo "RNIC-PLAN ${plan[*]}"
FAILED=0
for d in $directions; do
	port=$((4419 + d)) done=done
	[ $d = 1 ] || done=done.$d
	say "=== ${plan[$((d - 1))]}: guest$d is the target on port $port ==="
	if [ "$RNIC_GUEST_ID" = $d ]; then
		(target "$RNIC_RUN_DIR/out$((3 - d))/$done" $port)
	else
		(host "/run/out/$done" $port)
	fi
	if [ $? = 0 ]; then
		echo "RNIC-CHECK ok ${plan[$((d - 1))]} ports=$port opcodes=0,1,2,3,4"
	else
		echo "RNIC-CHECK fail ${plan[$((d - 1))]} ports=$port opcodes=0,1,2,3,4"
		FAILED=$((FAILED + 1))
	fi
done
[ $FAILED = 0 ] || fail "$FAILED of ${#plan[@]} checks failed"
exit 0
