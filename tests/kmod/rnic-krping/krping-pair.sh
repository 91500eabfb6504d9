#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Lab guest script: rnic_krping (kernel verbs over rdma_cm) between two guests.
#   ./rnic lab --guests 2 --nic virtio --env RNIC_SOFT=siw \
#       --script tests/kmod/rnic-krping/krping-pair.sh
#   ./rnic lab --guests 2 --nic rnic --script tests/kmod/rnic-krping/krping-pair.sh
# Guest 1 serves, guest 2 connects; both print the module's RESULT line.
# RNIC_KRPING_MAX (bytes, default 8 MiB) and RNIC_KRPING_ITERS tune the run;
# RNIC_KRPING_ZERO_READ=0 leaves out the client's 0-byte Read (set when siw
# serves: its stale Read Response, docs/conformance.md).
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail
KO=${RNIC_KRPING_KO:-$RNIC_CACHE/build/kmod-rnic-krping-6.12/rnic_krping.ko}
PORT=18520
[ -f "$KO" ] || fail "no $KO: run scripts/setup/guest-driver.sh"

dmesg -C
net_up
case "$RNIC_NIC" in
rnic) TAG=rnic ;;
*)
	soft_rdma_up "${RNIC_SOFT:-siw}" "$RNIC_SIW"
	TAG=${RNIC_SOFT:-siw}
	;;
esac
modprobe rdma_cm || fail "modprobe rdma_cm"
rdma link show
[ -n "$(rdma link show)" ] || { dmesg | grep -iE 'rnic|ib_|rdma'; fail "no RDMA device"; }
wait_peer
pin_peer_neigh

args="port=$PORT max_size=${RNIC_KRPING_MAX:-8388608} iters=${RNIC_KRPING_ITERS:-2}"
args="$args zero_read=${RNIC_KRPING_ZERO_READ:-1}"
last_result() { dmesg | grep 'rnic_krping: RESULT' | tail -1; }

rc=0
if [ "$RNIC_ROLE" = server ]; then
	# init runs the whole test: insmod returns when the client is done.
	# shellcheck disable=SC2086
	insmod "$KO" role=server addr="$RNIC_IP" $args || rc=$?
else
	# The server may not listen yet: retry while the connection is refused.
	end=$((SECONDS + 240))
	while :; do
		sleep 3
		rc=0
		# shellcheck disable=SC2086
		insmod "$KO" role=client addr="$RNIC_PEER" $args || rc=$?
		[ $rc = 0 ] && break
		dmesg | grep -q 'no connection' || break
		[ $SECONDS -lt $end ] || break
		dmesg -C
	done
fi
line=$(last_result)
echo "$line"
dmesg | grep -E 'rnic_krping|rnic' | tail -20
[ -n "$line" ] || fail "rnic_krping printed no result"
result "krping-$TAG-$RNIC_ROLE" "${line#*RESULT }"
[ "${rc:-0}" = 0 ] || fail "rnic_krping $RNIC_ROLE failed (insmod rc $rc)"
rmmod rnic_krping || fail "rmmod rnic_krping"
bad=$(dmesg | grep -v 'module verification failed' | grep -E 'BUG|WARNING|Oops|leak')
[ -z "$bad" ] || { echo "$bad"; fail "kernel log after rnic_krping"; }
exit 0
