#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Negative test, rnic receiving: guest 1 has the rnic device (server), guest 2 siw
# (client); the relay flips one TCP payload byte of a big frame siw sends
# (TCP checksum fixed up, so only MPA's CRC32c can notice; rnic asks for CRC).
# The rnic device must end the connection (Terminate or reset) and deliver no
# corrupted data: rnic_krping checks every byte it receives and would report a
# mismatch. Both sides must fail cleanly, with no kernel splat.
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail
KO=${RNIC_KRPING_KO:-$RNIC_CACHE/build/kmod-rnic-krping-6.12/rnic_krping.ko}
[ -f "$KO" ] || fail "no $KO: run scripts/setup/guest-driver.sh"
PORT=18590 SYNC=19590

dmesg -C
net_up
[ "$RNIC_NIC" = rnic ] || soft_rdma_up siw "${RNIC_SIW:-siw}"
modprobe rdma_cm || fail "modprobe rdma_cm"
[ -n "$(rdma link show)" ] || fail "no RDMA device"
wait_peer
pin_peer_neigh
if [ "$RNIC_NIC" = rnic ]; then
	echo 1 >/sys/module/rnic/parameters/mpa_crc || fail "cannot ask for CRC"
fi

args="port=$PORT max_size=1048576 iters=2 frwr=0 timeout_ms=30000"
rc=0
if [ "$RNIC_ROLE" = server ]; then
	# shellcheck disable=SC2086
	insmod "$KO" role=server addr="$RNIC_IP" $args &
	pid=$!
	sleep 2
	timeout 120 nc -l -N "$SYNC" <<<ready >/dev/null || say "the client never asked"
	wait $pid || rc=$?
else
	retry 120 sh -c "nc -w 3 $RNIC_PEER $SYNC </dev/null | grep -q ready" || fail "server never ready"
	sleep 1
	# shellcheck disable=SC2086
	insmod "$KO" role=client addr="$RNIC_PEER" $args || rc=$?
fi
log=$(dmesg)
echo "$log" | grep -E 'rnic_krping|rnic|siw' | tail -15
line=$(echo "$log" | grep 'rnic_krping: RESULT' | tail -1)
[ -n "$line" ] || fail "rnic_krping printed no result"
result "corrupt-to-rnic-$RNIC_NIC" "insmod_rc=$rc" "${line#*RESULT }"
lsmod | grep -q '^rnic_krping' && rmmod rnic_krping
if echo "$log" | grep -v 'module verification failed' | grep -E 'BUG|WARNING|Oops|leak'; then
	fail "kernel log after the corrupted FPDU"
fi
# rnic_krping's own checks: a wrong byte or a bad message means corrupted data got through.
if echo "$log" | grep -E 'rnic_krping: .*(byte [0-9]+ of|bad data|short message|message type)'; then
	fail "corrupted data was delivered"
fi
[ "$rc" != 0 ] || fail "rnic_krping passed although an FPDU was corrupted"
bytes=$(echo "$line" | sed -n 's/.* bytes=\([0-9]*\).*/\1/p')
[ "${bytes:-0}" -gt 0 ] || fail "no data moved before the corruption: nothing was tested"
say "the connection failed as it must, no corrupted data delivered ($bytes bytes before)"
exit 0
