#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Lab guest script: the rnic <-> siw negotiation matrix (one boot, every cell in turn).
# One guest has the rnic device, the other virtio-net with siw; the host runner
# (tests/conformance/interop-matrix.py) writes the cells to $RNIC_MATRIX, one a line:
#   NAME SIW_VARIANT SERVER(rnic|siw) RNIC_PARAMS(k=v,... for /sys/module/rnic) EXPECT(ok|fail)
# Both guests walk the same list. For each cell the siw guest loads the variant
# (siw's settings are compile-time: kernel.sh builds one siw.ko per variant), the
# rnic guest writes the driver's CM module parameters (they apply to new
# connections); the two meet on TCP port 19600+N, the server starts rnic_krping on
# port 18600+N and says so on port 19700+N, and the client connects.
# Each side prints RESULT interop cell=NAME ...; the runner judges them with the pcap.
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail
KO=${RNIC_KRPING_KO:-$RNIC_CACHE/build/kmod-rnic-krping-6.12/rnic_krping.ko}
[ -f "$KO" ] || fail "no $KO: run scripts/setup/guest-driver.sh"
[ -f "$RNIC_MATRIX" ] || fail "no cell list RNIC_MATRIX=$RNIC_MATRIX"

dmesg -C
net_up
if [ "$RNIC_NIC" = rnic ]; then
	ME=rnic
	modprobe rdma_cm || fail "modprobe rdma_cm"
	[ -n "$(rdma link show)" ] || fail "no RDMA device"
else
	ME=siw
	modprobe rdma_cm || fail "modprobe rdma_cm"
fi
wait_peer
pin_peer_neigh
cur_siw=

siw_load() { # siw_load VARIANT: the siw build of that name on $NETDEV
	[ "$1" = "$cur_siw" ] && return 0
	if [ -n "$cur_siw" ]; then
		rdma link delete siw0 || fail "rdma link delete siw0"
		rmmod siw || fail "rmmod siw ($cur_siw)"
	fi
	soft_rdma_up siw "$1"
	cur_siw=$1
}

rnic_params() { # rnic_params k=v,...: the driver's CM parameters for new connections
	local kv p=/sys/module/rnic/parameters
	for kv in ${1//,/ }; do
		[ -w "$p/${kv%%=*}" ] || fail "rnic has no writable parameter ${kv%%=*}"
		echo "${kv#*=}" >"$p/${kv%%=*}" || fail "cannot set rnic ${kv}"
	done
}

# The cell's verdict on this side: what rnic_krping reported, and a clean kernel log.
report() { # report NAME ROLE INSMOD_RC
	local line bad
	line=$(dmesg | grep 'rnic_krping: RESULT' | tail -1)
	bad=$(dmesg | grep -v 'module verification failed' | grep -E 'BUG|WARNING|Oops|leak')
	if [ -z "$bad" ]; then bad=0; else echo "$bad"; bad=1; fi
	dmesg | grep -E 'rnic_krping|rnic|siw' | tail -8
	[ -n "$line" ] && line=$(echo "${line#*RESULT }" | sed 's/role=[^ ]* //')
	# shellcheck disable=SC2086
	result interop "cell=$1" "side=$ME" "role=$2" "insmod_rc=$3" "kernel_bad=$bad" ${line:-ok=0 err=none}
}

n=0
while read -r name variant server params expect; do
	# Line N is cell N (ports follow it); '#' lines are cells left out.
	n=$((n + 1))
	[ -z "$name" ] || [ "${name:0:1}" = '#' ] && continue
	port=$((18600 + n)) sync=$((19600 + n))
	say "cell $n $name: siw=$variant server=$server rnic=$params expect=$expect"
	if [ "$ME" = siw ]; then
		siw_load "$variant"
	else
		rnic_params "$params"
	fi
	# A refused connection makes the server wait for nothing: bound it.
	[ "$expect" = ok ] && tmo=60000 || tmo=15000
	args="port=$port max_size=${RNIC_KRPING_MAX:-262144} iters=1 frwr=${RNIC_KRPING_FRWR:-0} timeout_ms=$tmo"
	# siw as server answers a 0-byte Read that waited in its IRQ with stale
	# data (docs/conformance.md): the rnic client leaves that one step out.
	[ "$server" = siw ] && args="$args zero_read=0"
	dmesg -C
	rc=0
	if [ "$server" = "$ME" ]; then
		# Listen only once the client has reached this cell (a refused cell
		# can keep it busy), then tell it we listen; it connects once, so a
		# refusal is the cell's.
		timeout 150 nc -l -N "$sync" </dev/null >/dev/null || say "cell $name: the client never came"
		# shellcheck disable=SC2086
		insmod "$KO" role=server addr="$RNIC_IP" $args &
		pid=$!
		sleep 2
		timeout 60 nc -l -N "$((sync + 100))" <<<ready >/dev/null || say "cell $name: the client never asked"
		wait $pid || rc=$?
		report "$name" server $rc
	else
		retry 150 nc -z -w 3 "$RNIC_PEER" "$sync" || say "cell $name: the server never came"
		retry 60 sh -c "nc -w 3 $RNIC_PEER $((sync + 100)) </dev/null | grep -q ready" ||
			say "cell $name: the server never got ready"
		sleep 1
		# shellcheck disable=SC2086
		insmod "$KO" role=client addr="$RNIC_PEER" $args || rc=$?
		report "$name" client $rc
	fi
	lsmod | grep -q '^rnic_krping' && { rmmod rnic_krping || fail "rmmod rnic_krping"; }
done <"$RNIC_MATRIX"
say "matrix done: $n cells"
exit 0
