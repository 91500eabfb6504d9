#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Loopback: one guest with -device rnic connects to its own addresses through
# the device (the engine loops the frames back inside itself; none reaches the
# wire, which lab.py's capture check holds with --allow-opcodes=). Each check
# is a TAP subtest (RNIC-PLAN / RNIC-CHECK, see rnic-user-pair.sh), run in
# order in one boot:
#   rping      rping -C $RNIC_RPING_COUNT -V to the guest's own address
#   write_bw   ib_write_bw -R 64 KiB to the own address
#   read_bw    ib_read_bw -R 64 KiB to the own address
#   nvmeof     nvmet-rdma target and nvme-rdma host in this guest on the own
#              address: $RNIC_NVME_MIB MiB written, read back, SHA-256 compared
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail
net_up
rdma_up
use_staged_rdma_core
rdma link show

# server_bg PORT CMD...: CMD in the background until it ends or 300 s pass.
server_bg() {
	local port=$1
	shift
	timeout 300 "$@" >"/tmp/server.$port.txt" 2>&1 &
	SERVER_PID=$!
}

# client_retry CMD...: CMD until it succeeds (the server may not listen yet).
client_retry() {
	local _
	for _ in $(seq 1 30); do
		OUT=$(timeout 240 "$@" 2>&1) && return 0
		echo "$OUT" | grep -qi "refused\|REJECTED\|CONNECT_ERROR\|ECONNREFUSED" || return 1
		sleep 2
	done
	return 1
}

server_done() {
	wait "$SERVER_PID" || { cat "/tmp/server.$1.txt"; return 1; }
}

rping_self() { # rping_self ADDR PORT
	local n=${RNIC_RPING_COUNT:-100} pings
	server_bg "$2" rping -s -a "$1" -p "$2" -C "$n" -V
	client_retry rping -c -a "$1" -p "$2" -C "$n" -v -V || { echo "$OUT"; kill "$SERVER_PID"; fail "rping client to $1"; }
	server_done "$2" || fail "rping server on $1"
	echo "$OUT" | tail -2
	pings=$(echo "$OUT" | grep -o "data: rdma-ping-[0-9]*: " | sort -u | grep -c .)
	[ "$pings" = "$n" ] || fail "rping to $1: $pings of $n pings verified"
	echo "$OUT" | grep -qi "data mismatch\|error" && fail "rping to $1 reported an error"
	result "loopback-rping" addr="$1" pings="$pings" verified=yes
}

# perftest turns its cycle counts into rates with a clock rate it measures
# against gettimeofday(); under TCG on a loaded host that fit can fail
# ("Correlation coefficient r^2: 0.76 < 0.9", then "Can't produce a report",
# exit 1) after every message went through. Only that is retried.
NO_REPORT="Can't produce a report"
perf_self() { # perf_self TOOL PORT
	local a=(-R -d "$DEV" -p "$2" -s 65536 -n "${RNIC_PERF_ITERS:-2000}" --report_gbits) row try
	for try in 1 2 3; do
		server_bg "$2" "ib_$1" "${a[@]}"
		if client_retry "ib_$1" "${a[@]}" "$RNIC_IP"; then
			server_done "$2" && break
			grep -q "$NO_REPORT" "/tmp/server.$2.txt" || fail "ib_$1 server"
		else
			echo "$OUT"
			kill "$SERVER_PID" 2>/dev/null
			wait "$SERVER_PID"
			echo "$OUT" | grep -q "$NO_REPORT" || fail "ib_$1 client"
		fi
		[ $try = 3 ] && fail "ib_$1: no report in 3 runs (perftest's clock fit)"
		say "ib_$1: perftest could not fit its clock (run $try); running again"
	done
	echo "$OUT" | tail -4
	row=$(echo "$OUT" | awk '$1 == 65536 && $2 ~ /^[0-9]+$/ && NF >= 5')
	[ -n "$row" ] || fail "ib_$1: no 65536-byte result row"
	echo "$row" | while read -r s n pk avg _; do
		result "loopback-ib_$1" size="$s" iters="$n" gbps_avg="$avg" gbps_peak="$pk"
	done
}

NQN=nqn.2026-12.invalid.rnic:loopback
nvmeof_self() {
	local mib=${RNIC_NVME_MIB:-64}
	nvmet_rdma_target "$NQN" 4420
	modprobe nvme-rdma || fail "nvme-rdma"
	nvme connect -t rdma -a "$RNIC_IP" -s 4420 -n "$NQN" \
		--hostnqn="nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)" ||
		fail "nvme connect -t rdma $RNIC_IP:4420 (this guest's own target)"
	nvme_rw_verify "$NQN" "$mib" loopback-nvmeof
	dmesg | grep -E "Oops|BUG:|WARNING:" -A12 && fail "kernel oops/BUG/WARNING"
	return 0
}

read -ra checks <<<"${RNIC_LOOP_CHECKS:-rping write_bw read_bw nvmeof}"
echo "RNIC-PLAN ${checks[*]}"
FAILED=0
for c in "${checks[@]}"; do
	say "=== $c ==="
	(
		case "$c" in
		rping) rping_self "$RNIC_IP" 7174 ;;
		write_bw) perf_self write_bw 18515 ;;
		read_bw) perf_self read_bw 18516 ;;
		nvmeof) nvmeof_self ;;
		*) fail "unknown check $c" ;;
		esac
	)
	if [ $? = 0 ]; then
		echo "RNIC-CHECK ok $c"
	else
		echo "RNIC-CHECK fail $c"
		FAILED=$((FAILED + 1))
	fi
done
[ $FAILED = 0 ] || fail "$FAILED of ${#checks[@]} checks failed"
exit 0
