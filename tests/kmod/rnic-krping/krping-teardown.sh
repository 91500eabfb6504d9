#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Lab guest script: teardown under load.  Two rnic guests run a long
# rnic_krping; once its QP is in RTS and 2000 FPDUs have arrived, the server
# unloads rnic.ko with the connection open
# (ULP sees DEVICE_REMOVAL), so the client sees its peer reset.  Both sides
# must come back without a hang, oops or leak, and rnic.ko must unload on
# the client too.
#   ./rnic lab --guests 2 --nic rnic --script tests/kmod/rnic-krping/krping-teardown.sh
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail
KO=${RNIC_KRPING_KO:-$RNIC_CACHE/build/kmod-rnic-krping-6.12/rnic_krping.ko}
[ -f "$KO" ] || fail "no $KO: run scripts/setup/guest-driver.sh"

dmesg -C
net_up
modprobe rdma_cm || fail "modprobe rdma_cm"
[ -n "$(rdma link show)" ] || { dmesg | grep -iE 'rnic|rdma'; fail "no RDMA device"; }
wait_peer
pin_peer_neigh
args="port=18521 max_size=1048576 iters=1000 timeout_ms=60000"

if [ "$RNIC_ROLE" = server ]; then
	# shellcheck disable=SC2086
	insmod "$KO" role=server addr="$RNIC_IP" $args &
	pid=$!
	# Under load: the QP in RTS (the module prints nothing then) and 2000
	# FPDUs received on it (a few hundred Send/Write/Read rounds).
	for _ in $(seq 1 600); do
		rdma resource show qp | grep -q 'state RTS' && break
		kill -0 $pid 2>/dev/null || fail "rnic_krping server ended before connecting"
		sleep 0.2
	done
	rdma resource show qp | grep -q 'state RTS' || fail "rnic_krping never connected"
	wait_fpdus 2000 120
	say "unloading rnic.ko with the connection open"
	timeout 120 rmmod rnic || fail "rmmod rnic with a connection open (rc $?)"
	say "rnic.ko unloaded"
	wait $pid && fail "rnic_krping passed although its device went away"
else
	end=$((SECONDS + 240))
	while :; do
		sleep 3
		# shellcheck disable=SC2086
		timeout 200 insmod "$KO" role=client addr="$RNIC_PEER" $args && fail "client passed"
		dmesg | grep -q 'no connection' || break
		[ $SECONDS -lt $end ] || fail "no connection to the server"
		dmesg -C
	done
	say "client ended after the peer went away"
	timeout 120 rmmod rnic || fail "rmmod rnic on the client (rc $?)"
fi
line=$(dmesg | grep 'rnic_krping: RESULT' | tail -1)
echo "$line"
dmesg | grep -E 'rnic' | tail -25
result "krping-teardown-$RNIC_ROLE" "${line#*RESULT }"
bad=$(dmesg | grep -v 'module verification failed' | grep -E 'BUG|WARNING|Oops|leak|hung')
[ -z "$bad" ] || { echo "$bad"; fail "kernel log after the teardown"; }
! grep -q rnic /proc/interrupts || fail "rnic interrupts left after rmmod"
exit 0
