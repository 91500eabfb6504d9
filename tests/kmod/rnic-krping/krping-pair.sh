#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Lab guest script: rnic_krping (kernel verbs over rdma_cm) between two guests.
#   ./rnic lab --guests 2 --nic virtio --env RNIC_SOFT=siw \
#       --script tests/kmod/rnic-krping/krping-pair.sh
#   ./rnic lab --guests 2 --nic rnic --script tests/kmod/rnic-krping/krping-pair.sh
# Guest 1 serves, guest 2 connects; both print the module's RESULT line.
# RNIC_KRPING_BOTH_WAYS=1 then swaps the roles in the same boot (guest 2 serves
# on port 18525): with one rnic and one siw guest, each stack serves once and
# connects once. Each direction is a check (RNIC-PLAN / RNIC-CHECK, for
# lab.py --tap) named krping-SERVER-CLIENT by the guests' stacks; its server
# port must carry RDMA Write, Read Request/Response and Send.
# RNIC_KRPING_MAX (bytes, default 8 MiB) and RNIC_KRPING_ITERS tune the run;
# the client leaves out its 0-byte Read when siw serves (its stale Read
# Response, docs/conformance.md); RNIC_KRPING_ZERO_READ=0|1 overrides that.
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

# krping_direction D: guest D serves on port PORT + 5 (D - 1), the other
# guest connects; this guest's share of the check (run in a subshell).
krping_direction() {
	local d=$1 port=$((PORT + 5 * ($1 - 1))) role zero args line rc end
	zero=${RNIC_KRPING_ZERO_READ:-}
	[ -n "$zero" ] || { [ "$(stack_of "$d")" = rnic ] && zero=1 || zero=0; }
	args="port=$port max_size=${RNIC_KRPING_MAX:-8388608} iters=${RNIC_KRPING_ITERS:-2} zero_read=$zero"
	# The first direction's kernel log check covers the set-up above too.
	[ "$d" = 1 ] || dmesg -C
	rc=0
	if [ "$RNIC_GUEST_ID" = "$d" ]; then
		role=server
		# init runs the whole test: insmod returns when the client is done.
		# shellcheck disable=SC2086
		insmod "$KO" role=server addr="$RNIC_IP" $args || rc=$?
	else
		role=client
		# The server may not listen yet: retry while the connection is refused
		# (in direction 2 the server may still be failing direction 1).
		end=$((SECONDS + 240 * d))
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
	line=$(dmesg | grep 'rnic_krping: RESULT' | tail -1)
	echo "$line"
	dmesg | grep -E 'rnic_krping|rnic' | tail -20
	[ -n "$line" ] || fail "rnic_krping printed no result"
	result "krping-$TAG-$role" "${line#*RESULT }"
	[ "$rc" = 0 ] || fail "rnic_krping $role failed (insmod rc $rc)"
	rmmod rnic_krping || fail "rmmod rnic_krping"
	bad=$(dmesg | grep -v 'module verification failed' | grep -E 'BUG|WARNING|Oops|leak')
	[ -z "$bad" ] || { echo "$bad"; fail "kernel log after rnic_krping"; }
}

directions=1
[ "${RNIC_KRPING_BOTH_WAYS:-0}" = 1 ] && directions="1 2"
plan=()
for d in $directions; do
	plan+=("krping-$(stack_of "$d")-$(stack_of $((3 - d)))")
done
echo "RNIC-PLAN ${plan[*]}"
FAILED=0
for d in $directions; do
	name=${plan[$((d - 1))]}
	say "=== $name: guest$d serves on port $((PORT + 5 * (d - 1))) ==="
	if (krping_direction "$d"); then
		echo "RNIC-CHECK ok $name ports=$((PORT + 5 * (d - 1))) opcodes=0,1,2,3"
	else
		echo "RNIC-CHECK fail $name ports=$((PORT + 5 * (d - 1))) opcodes=0,1,2,3"
		FAILED=$((FAILED + 1))
	fi
done
[ $FAILED = 0 ] || fail "$FAILED of ${#plan[@]} checks failed"
exit 0
