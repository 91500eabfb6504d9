#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two guests over virtio-net with a software iWARP/RoCE stack (RNIC_SOFT=siw|rxe):
# rping with data validation, then perftest write/read bandwidth and send latency
# over rdma_cm (-R). Guest 1 serves, guest 2 is the client. RNIC_SIW picks a siw
# variant built by scripts/setup/kernel.sh (default: stock siw). Every tool is
# a check of its own (RNIC-PLAN / RNIC-CHECK, as rnic-user-pair.sh: lab.py --tap
# makes each a TAP subtest, judged by both guests and, for iWARP, by its server
# port's rule in the captures).
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail
net_up
soft_rdma_up "$RNIC_SOFT" "$RNIC_SIW"
rdma link show
use_staged_rdma_core
wait_peer
pin_peer_neigh
ibv_devinfo -d "$DEV" | grep -E "hca_id|transport|state" || fail "ibv_devinfo $DEV"

SZ=65536
N=${RNIC_PERF_ITERS:-300}
# A port per tool: a listener on a port the previous tool just used can still be
# refused by the peer's CM (seen with rxe: REJECTED for minutes on 18515).
port_rping=7174 port_write=18515 port_read=18516 port_lat=18517

# The servers start over when the client reports a hung attempt (siw's accept
# race, see serve_until_client_done in lib.sh).
serve() { # serve TOOL
	case "$1" in
	rping) serve_until_client_done rping 300 rping -s -a "$RNIC_IP" -p $port_rping -C 100 -V ;;
	write | read)
		local port=port_$1
		serve_until_client_done "$1" 300 "ib_${1}_bw" -R -d "$DEV" -p ${!port} -s $SZ -n "$N" \
			--report_gbits ;;
	lat) serve_until_client_done lat 300 ib_send_lat -R -d "$DEV" -p $port_lat -s 8 -n 300 ;;
	esac || fail "$1 server"
}

client() { # client TOOL
	local out line port pings
	case "$1" in
	rping)
		rping_client -a "$RNIC_PEER" -p $port_rping -C 100 -v -V || fail "rping client"
		echo "$RPING_OUT" | tail -3
		pings=$(echo "$RPING_OUT" | grep -c "ping data")
		result rping-$RNIC_SOFT pings=$pings
		[ "$pings" = 100 ] || fail "rping: $pings of 100 pings verified"
		;;
	write | read)
		port=port_$1
		out=$(client_try "$1" 240 90 "ib_${1}_bw" -R -d "$DEV" -p ${!port} -s $SZ -n "$N" \
			--report_gbits "$RNIC_PEER") || fail "ib_${1}_bw client"
		echo "$out"
		# #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]
		line=$(echo "$out" | awk -v s=$SZ '$1==s && NF>=5 {print; exit}')
		[ -n "$line" ] || fail "ib_${1}_bw printed no result line"
		result "ib_${1}_bw-$RNIC_SOFT" size=$SZ iters="$N" \
			gbps_avg="$(echo "$line" | awk '{print $4}')" gbps_peak="$(echo "$line" | awk '{print $3}')"
		;;
	lat)
		out=$(client_try lat 240 60 ib_send_lat -R -d "$DEV" -p $port_lat -s 8 -n 300 "$RNIC_PEER") ||
			fail "ib_send_lat client"
		echo "$out"
		# #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
		line=$(echo "$out" | awk '$1==8 && NF>=7 {print; exit}')
		[ -n "$line" ] || fail "ib_send_lat printed no result line"
		result "ib_send_lat-$RNIC_SOFT" size=8 usec_typical="$(echo "$line" | awk '{print $5}')" \
			usec_avg="$(echo "$line" | awk '{print $6}')"
		;;
	esac
}

# check_wire TOOL: its server port and the RDMAP opcodes it must put on the
# wire (lab.py's per-check capture rule); none for rxe, whose RoCE the
# captures must not show as iWARP at all.
check_wire() {
	local port=port_$1
	[ "$RNIC_SOFT" = siw ] || return 0
	case "$1" in
	rping) echo "ports=${!port} opcodes=0,1,2,3" ;;
	write) echo "ports=${!port} opcodes=0" ;;
	read) echo "ports=${!port} opcodes=1,2" ;;
	lat) echo "ports=${!port} opcodes=3" ;;
	esac
}

# RNIC_TOOLS picks the tools (default: all, in one boot). Each runs in a
# subshell, so a failing one (fail exits its subshell) does not stop the next.
# The suite once booted per tool: a server that hung in siw's accept race held
# its one-shot tool and never listened for the next one (siw-crc), and a
# listener on a port just used was REJECTED (rxe). Each tool has its own port
# now, and serve_until_client_done (lib.sh) starts a hung server over and ends
# it as soon as the client is done, so the next tool's server always listens.
tools=${RNIC_TOOLS:-rping write read lat}
for t in $tools; do
	case "$t" in rping | write | read | lat) ;; *) fail "unknown tool $t" ;; esac
done
echo "RNIC-PLAN $tools"
FAILED=0
for t in $tools; do
	say "=== $t ==="
	(
		if [ "$RNIC_ROLE" = server ]; then
			serve "$t"
		else
			sleep 2
			client "$t"
		fi
	)
	if [ $? = 0 ]; then
		echo "RNIC-CHECK ok $t $(check_wire "$t")"
	else
		echo "RNIC-CHECK fail $t $(check_wire "$t")"
		FAILED=$((FAILED + 1))
	fi
done
[ $FAILED = 0 ] || fail "$FAILED of $(echo $tools | wc -w) checks failed"
exit 0
