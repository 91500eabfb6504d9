#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Negative test: the relay corrupts one TCP payload byte of an FPDU (TCP checksum
# fixed up, so only MPA's CRC32c can notice). Both guests run siw with MPA CRC
# required (variant siw-crc). The connection must fail — Terminate or reset — and
# no corrupted data may be delivered: rping -V would report a mismatch if it were.
. "$RNIC_LAB_DIR/guest/lib.sh"
net_up
soft_rdma_up siw siw-crc
use_staged_rdma_core
wait_peer
pin_peer_neigh
dmesg -n 1

if [ "$RNIC_ROLE" = server ]; then
	out=$(timeout 300 rping -s -a "$RNIC_IP" -C 200 -S 1024 -V 2>&1)
	rc=$?
else
	sleep 1
	rping_client -a "$RNIC_PEER" -C 200 -S 1024 -v -V || fail "rping never connected"
	out=$RPING_OUT rc=$RPING_RC
fi
echo "$out" | tail -5
# rping exits 0 even when its connection dies: judge by what it printed.
if echo "$out" | grep -qi "mismatch"; then
	fail "corrupted data was delivered to rping"
fi
[ $rc -ne 124 ] || fail "rping hung instead of failing the connection"
echo "$out" | grep -q "DISCONNECT EVENT\|state 10\|error" ||
	fail "rping saw no connection error although an FPDU was corrupted"
if [ "$RNIC_ROLE" = client ]; then
	pings=$(echo "$out" | grep -c "ping data")
	[ "$pings" -lt 200 ] || fail "all 200 pings completed although an FPDU was corrupted"
	# The 40th large frame is corrupted: pings before it prove the connection was up.
	[ "$pings" -gt 0 ] || fail "no ping got through before the corruption: nothing was tested"
	result corrupt-fpdu pings_before_failure="$pings"
fi
say "the connection failed as it must, no corrupted data delivered"
exit 0
