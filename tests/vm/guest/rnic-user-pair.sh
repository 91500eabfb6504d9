#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# User-space RDMA between two lab guests through the rdma-core provider
# (provider/, staged rdma-core): with RNIC_NIC=rnic the device's own ib_device,
# with virtio the software peer RNIC_SOFT (siw) for comparison. Guest 1 serves,
# guest 2 is the client (both in turn with RNIC_USER_BOTH_WAYS=1, see the end).
# RNIC_TOOLS picks the tools, run in order in one boot:
#   devinfo   ibv_devinfo: transport iWARP, port PORT_ACTIVE (both guests)
#   rping     rping -C $RNIC_RPING_COUNT -V, every ping's data verified
#   ucmatose  ucmatose, $RNIC_UCMA_CONNS connections x $RNIC_UCMA_MSGS messages
#             (ucmatose:CONNSxMSGS sets both for that run)
#   rdmacm    rdma_server / rdma_client
#   write_bw read_bw send_bw write_lat read_lat send_lat
#             perftest over rdma_cm (-R): sizes 2 B .. 8 MiB (-a) unless
#             RNIC_PERF_SIZE gives one size; RNIC_PERF_ITERS iterations each
#             (default 5 with -a, perftest's minimum: 80 MiB a run, 300 for one size)
#   srq_bw    ib_send_bw --use-srq: the server's receives come from a shared
#             receive queue (same sizes and iterations as send_bw)
#   atomic_bw atomic_lat
#             perftest ib_atomic_bw / ib_atomic_lat -R (FetchAdd, then -A
#             CMP_AND_SWAP), RNIC_PERF_ITERS (default 1000) each
#   atomics   rnic-atomic-check ($RNIC_ATOMIC_CHECK): RFC 7306 CompareSwap and
#             FetchAdd values checked from both ends, atomic_cap, alignment
#   qperf     qperf -cm1, one run per test: rc_bw rc_lat rc_rdma_write_bw/lat
#             rc_rdma_read_bw/lat (RFC 7306 on), $RNIC_QPERF_SIZE (16K) messages
#   strace    strace -c -f of two ib_write_bw clients, few and many messages:
#             fails when the ioctl/write count grows with the message count
#   nvmeof    guest 1 serves a null_blk namespace over nvmet-rdma, guest 2
#             connects with nvme-rdma, writes $RNIC_NVME_MIB (64) MiB of random
#             data and reads it back: SHA-256 must match
#   counters  (rnic) during an rping, `rdma resource show qp -dd` lists the
#             driver's connection details on both guests; after it, with both
#             guests idle, `rdma statistic show link DEV/1`: traffic counted,
#             no wire error, and each guest's sent counts match what the other
#             received (check_counters)
# RNIC_VLAN=VID: everything runs over an 802.1Q VLAN interface on the lab's
# NIC (lib.sh vlan_up, addresses 10.78.0.N), a software peer bound to it.
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail
net_up
[ -z "${RNIC_VLAN:-}" ] || vlan_up "$RNIC_VLAN"
rdma_up
rdma link show
use_staged_rdma_core
wait_peer
pin_peer_neigh
TAG=${RNIC_NIC%%,*}
[ "$TAG" = rnic ] || TAG=${RNIC_SOFT:-siw}

# One port per tool: a listener's port just used by the previous tool can be
# refused for a while by a peer's CM.
declare -A PORT=([rping]=7174 [ucmatose]=7471 [rdmacm]=7472 [write_bw]=18515 [read_bw]=18516
	[send_bw]=18517 [write_lat]=18518 [send_lat]=18519 [strace]=18520 [strace2]=18521
	[read_lat]=18522 [srq_bw]=18525 [counters]=7175 [atomic_bw]=18523 [atomic_lat]=18524 [atomics]=7176 [nvmeof]=4420)

# port TOOL: its port, moved on by 100 for each earlier run in this boot.
# CMP_AND_SWAP runs of the atomic perftests take the port 50 above.
port() {
	local o=0
	[ "${ATOMIC_OP:-}" = CMP_AND_SWAP ] && o=50
	echo $((${PORT[$1]} + 100 * RUN + o))
}

perf_args() { # perf_args TOOL: the arguments both sides share
	# -a moves 16 MiB per iteration (2 B .. 8 MiB): few iterations under TCG.
	local a=(-R -d "$DEV" -p "$(port "$1")")
	if [ "${1#atomic_}" != "$1" ]; then
		# Atomics move 8 bytes: no size; -A picks the operation.
		a+=(-n "${RNIC_PERF_ITERS:-1000}" -A "${ATOMIC_OP:-FETCH_AND_ADD}")
	elif [ -n "$SIZE" ]; then
		a+=(-s "$SIZE" -n "${RNIC_PERF_ITERS:-300}")
	else
		a+=(-a -n "${RNIC_PERF_ITERS:-5}")
	fi
	case "$1" in *_bw) a+=(--report_gbits) ;; esac
	[ "$1" = srq_bw ] && a+=(--use-srq)
	echo "${a[@]}"
}

# perf_bin TOOL: the perftest binary that runs it.
perf_bin() {
	case "$1" in srq_bw) echo ib_send_bw ;; *) echo "ib_$1" ;; esac
}

devinfo() {
	local out
	out=$(ibv_devinfo -v -d "$DEV") || fail "ibv_devinfo -d $DEV"
	echo "$out" | grep -E "hca_id|transport|fw_ver|vendor_id|vendor_part_id|max_qp:|max_mr_size|state|active_mtu|phys_state"
	echo "$out" | grep -q "transport:.*iWARP" || fail "$DEV: transport is not iWARP"
	echo "$out" | grep -q "state:.*PORT_ACTIVE" || fail "$DEV: port not PORT_ACTIVE"
	result "devinfo-$TAG-guest$RNIC_GUEST_ID" dev="$DEV" transport=iWARP state=PORT_ACTIVE
}

# rfc7306_on: qperf's rc_rdma_write_bw/lat post RDMA Write with Immediate,
# which iWARP carries as RFC 7306 Immediate Data. rnic negotiates RFC 7306
# per connection in the MPA exchange and the driver offers it by default;
# this only makes sure nobody switched the offer off. siw never agrees.
rfc7306_on() {
	[ "$TAG" = rnic ] || return 0
	echo Y >/sys/module/rnic/parameters/mpa_rfc7306 || fail "rnic mpa_rfc7306=Y"
}

serve() { # serve TOOL
	local a
	case "$1" in
	devinfo) devinfo ;;
	rping)
		# Started over after a hung attempt, as the perftest servers below.
		serve_until_client_done "$(pair_name rping)" 400 rping -s -a "$RNIC_IP" -p "$(port rping)" \
			-C "${RNIC_RPING_COUNT:-1000}" -V ;;
	ucmatose)
		timeout 400 ucmatose -b "$RNIC_IP" -p "$(port ucmatose)" -c "${RNIC_UCMA_CONNS:-4}" \
			-C "${RNIC_UCMA_MSGS:-10}" ;;
	rdmacm) timeout 300 rdma_server -s "$RNIC_IP" -p "$(port rdmacm)" ;;
	write_bw | read_bw | send_bw | srq_bw | write_lat | read_lat | send_lat)
		a=$(perf_args "$1")
		# Started over when the client reports a hung attempt (siw's accept
		# race, see serve_until_client_done in lib.sh).
		# shellcheck disable=SC2086
		serve_until_client_done "$(pair_name "$1")" 660 "$(perf_bin "$1")" $a ;;
	atomic_bw | atomic_lat)
		for ATOMIC_OP in FETCH_AND_ADD CMP_AND_SWAP; do
			a=$(perf_args "$1")
			# shellcheck disable=SC2086
			serve_until_client_done "$(pair_name "$1-$ATOMIC_OP")" 400 "ib_$1" $a || exit 1
		done ;;
	atomics)
		rfc7306_on
		timeout 120 "$RNIC_ATOMIC_CHECK" server "$RNIC_IP" "$(port atomics)" ;;
	qperf)
		rfc7306_on
		# Runs until the client's "quit" (also sent when the client fails).
		timeout 300 qperf -lp 19765 ;;
	strace)
		timeout 300 ib_write_bw -R -d "$DEV" -p "$(port strace)" -s 4096 -n 100 &&
			timeout 300 ib_write_bw -R -d "$DEV" -p "$(port strace2)" -s 4096 -n 2000 ;;
	counters) counters ;;
	nvmeof) nvmeof_target ;;
	*) fail "unknown tool $1" ;;
	esac || fail "$1 server"
}

NQN=nqn.2026-12.invalid.rnic:user-pair
# nvmeof_target: serve until the host says it is done (nvmeof.RUN.done on
# its share).
# RNIC_NVME_SRQ=1: nvmet-rdma's use_srq=1, its receives from SRQs (a kernel
# SRQ consumer): `rdma resource show srq` must list one while the host is on.
nvmeof_target() {
	local end=$((SECONDS + 900)) srqs=""
	if [ -n "${RNIC_NVME_SRQ:-}" ]; then
		modprobe nvmet-rdma use_srq=1 || fail "nvmet-rdma use_srq=1"
		[ "$(cat /sys/module/nvmet_rdma/parameters/use_srq)" = Y ] ||
			fail "nvmet-rdma did not take use_srq=1 (loaded before?)"
	fi
	nvmet_rdma_target "$NQN" "$(port nvmeof)"
	until [ -e "$RNIC_RUN_DIR/out$((3 - RNIC_GUEST_ID))/nvmeof.$RUN.done" ]; do
		[ $SECONDS -lt $end ] || fail "the NVMe-oF host never finished"
		[ -n "$srqs" ] || srqs=$(rdma resource show srq dev "$DEV" 2>/dev/null | grep nvmet)
		sleep 1
	done
	if [ -n "${RNIC_NVME_SRQ:-}" ]; then
		echo "$srqs"
		[ -n "$srqs" ] || fail "use_srq=1 but no SRQ of nvmet listed on $DEV"
		result "nvmeof-srq-$TAG" srqs="$(echo "$srqs" | grep -c .)"
	fi
	kernel_clean || fail "kernel oops/BUG/WARNING on the target"
}

nvmeof_host() {
	local mib=${RNIC_NVME_MIB:-64} i
	trap 'touch "$RNIC_OUT/nvmeof.$RUN.done"' EXIT
	modprobe nvme-rdma || fail "nvme-rdma"
	for i in $(seq 1 60); do
		nvme connect -t rdma -a "$RNIC_PEER" -s "$(port nvmeof)" -n "$NQN" \
			--hostnqn="nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)" \
			>/dev/null 2>&1 && break
		sleep 2
	done
	nvme_rw_verify "$NQN" "$mib" "nvmeof-$TAG"
	kernel_clean || fail "kernel oops/BUG/WARNING on the host"
}

# ctr NAME FILE: counter NAME of an `rdma statistic show` output.
ctr() { awk -v n="$1" '{ for (i = 1; i < NF; i++) if ($i == n) { print $(i + 1); exit } }' "$2"; }

# peer_file NAME: wait up to 300 s for the other guest's $RNIC_OUT/NAME.
peer_file() {
	local f=$RNIC_RUN_DIR/out$((3 - RNIC_GUEST_ID))/$1 i
	for i in $(seq 1 300); do
		[ -e "$f" ] && { echo "$f"; return 0; }
		sleep 1
	done
	fail "the peer never wrote $1"
}

# counters: both guests.  An rping connection (guest 1 serves) is up while
# each guest reads its QP details (iproute2 prints driver keys with or
# without a drv_ prefix); then both note they are idle, wait 5 s for the
# last ACKs and FINs, read their counters and compare them with the other's.
counters() {
	local mine=$RNIC_OUT/counters.txt res cq mr i pid="" name theirs
	[ "$TAG" = rnic ] || return 0
	[ "$RNIC_ROLE" = server ] || sleep 3
	for i in $(seq 1 60); do
		if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
			if [ "$RNIC_ROLE" = server ]; then
				timeout 300 rping -s -a "$RNIC_IP" -p "$(port counters)" -C 100000 >/dev/null 2>&1 &
			else
				timeout 300 rping -c -a "$RNIC_PEER" -p "$(port counters)" -C 100000 >/dev/null 2>&1 &
			fi
			pid=$!
		fi
		res=$(rdma -dd resource show qp link "$DEV/1" 2>&1)
		echo "$res" | grep -qE "(drv_)?tcp_state ESTABLISHED" && break
		sleep 1
	done
	echo "$res"
	cq=$(rdma -dd resource show cq dev "$DEV" 2>&1)
	mr=$(rdma -dd resource show mr dev "$DEV" 2>&1)
	echo "$cq"
	echo "$mr"
	touch "$RNIC_OUT/counters.res"
	peer_file counters.res >/dev/null
	kill "$pid" 2>/dev/null
	wait "$pid"
	echo "$res" | grep -qE "(drv_)?tcp_state ESTABLISHED" || fail "no QP with tcp_state ESTABLISHED"
	for name in snd_una snd_nxt rcv_nxt mss srtt_us mpa_rev mpa_crc mpa_markers sq_depth ird; do
		echo "$res" | grep -qE " (drv_)?$name " || fail "rdma resource show qp -dd: no $name"
	done
	echo "$cq" | grep -qE " (drv_)?cqn " || fail "rdma resource show cq -dd: no cqn"
	echo "$mr" | grep -qE " (drv_)?stag_index " || fail "rdma resource show mr -dd: no stag_index"
	touch "$RNIC_OUT/counters.idle"
	peer_file counters.idle >/dev/null
	sleep 5
	rdma statistic show link "$DEV/1" >"$mine" || fail "rdma statistic show link $DEV/1"
	cat "$mine"
	touch "$RNIC_OUT/counters.done"
	theirs=$(dirname "$(peer_file counters.done)")/counters.txt
	rdma statistic show link "$DEV/1" >"$mine.late" || fail "rdma statistic show link $DEV/1"
	check_counters "$mine" "$theirs" "$mine.late"
}

# check_counters MINE THEIRS MINE_LATE: what this guest counted, and against
# the peer. The two guests read their counters at about the same time, not at
# once: a segment sent here just after this guest's reading (seen: one, a
# tcpInSegs at the peer one above tcpOutSegs here) can be in the peer's. So
# what the peer received is compared with this guest's counters read again
# after the peer's reading: sent counts only grow, so every segment the peer
# had counted is in them.
check_counters() {
	local mine=$1 theirs=$2 late=$3 n a b p
	for n in tcpOutSegs tcpInSegs tcpOutDataSegs iwFpduSent iwFpduReceived iwConnsEstablished \
		tcpConnsOpened portTxFrames; do
		a=$(ctr $n "$mine")
		[ -n "$a" ] && [ "$a" -gt 0 ] || fail "$n is ${a:-missing}, want > 0"
	done
	for n in tcpInCsumErrors tcpInHdrErrors mpaCrcErrors mpaFramingErrors; do
		a=$(ctr $n "$mine")
		[ "$a" = 0 ] || fail "$n is ${a:-missing} on a wire that damages nothing"
	done
	# FPDUs: every one queued here reached the peer unless its connection
	# was reset first; segments: the peer's offload TCP takes all but those
	# that found their connection gone (they go to its L2 path).
	a=$(ctr iwFpduSent "$late") b=$(ctr iwFpduReceived "$theirs")
	say "iwFpduSent here $a, iwFpduReceived at the peer $b"
	[ "$b" -le "$a" ] && [ $((a - b)) -le $((a / 1000 + 5)) ] ||
		fail "iwFpduSent here $a, iwFpduReceived at the peer $b"
	# The peer's offload TCP also takes this guest's own kernel's TCP
	# segments that match one of its flows: RSTs (IP id 0, no ACK) to
	# segments that found their offload connection gone here and went to
	# the L2 path (seen: tcpInSegs at the peer one above tcpOutSegs here).
	# What the peer received is bounded by every frame this port sent.
	a=$(ctr tcpOutSegs "$late") b=$(ctr tcpInSegs "$theirs") p=$(ctr portTxFrames "$late")
	say "tcpOutSegs here $a (port frames $p), tcpInSegs at the peer $b"
	[ "$b" -le "$p" ] && [ $((a - b)) -le $((a / 100 + 10)) ] ||
		fail "tcpOutSegs here $a (port frames $p), tcpInSegs at the peer $b"
	result "counters-$TAG-guest$RNIC_GUEST_ID" tcp_out="$(ctr tcpOutSegs "$mine")" \
		tcp_in="$(ctr tcpInSegs "$mine")" rexmit="$(ctr tcpRetransSegs "$mine")" \
		rto="$(ctr tcpTimeouts "$mine")" fpdu_out="$(ctr iwFpduSent "$mine")" \
		fpdu_in="$(ctr iwFpduReceived "$mine")" term_out="$(ctr iwTermSent "$mine")" \
		term_in="$(ctr iwTermReceived "$mine")" conns="$(ctr iwConnsEstablished "$mine")"
}

# pair_name TOOL: the name of this run's server/client pair (lib.sh's
# serve_until_client_done / client_try / rping_try files); a tool may run
# several times.
pair_name() { echo "$1.$RUN"; }

# perf_client TOOL: run it, print it, check a row per size, report each row.
# Each attempt is bounded (one size: 90 s for bandwidth, 60 s for latency, as
# soft-rdma-pair.sh; -a: 420 s); refusals are retried for 180 s more.
perf_client() {
	local out a rows want each=420 name=$1${ATOMIC_OP:+-$ATOMIC_OP}
	a=$(perf_args "$1")
	if [ -n "$SIZE" ] || [ -n "${ATOMIC_OP:-}" ]; then
		case "$1" in *_bw) each=90 ;; *) each=60 ;; esac
	fi
	# shellcheck disable=SC2086
	out=$(client_try "$(pair_name "$name")" $((each + 180)) $each "$(perf_bin "$1")" $a "$RNIC_PEER") ||
		{ echo "$out"; fail "ib_$name client"; }
	echo "$out"
	# Result rows start with the size in bytes and an iteration count; out
	# holds every attempt: only the rows after the last header count.
	rows=$(echo "$out" | awk '/#bytes/ { r = "" }
		$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 5 { r = r $0 "\n" } END { printf "%s", r }')
	if [ -n "$SIZE" ] || [ -n "${ATOMIC_OP:-}" ]; then want=1; else want=23; fi # -a: 2^1 .. 2^23
	[ "$(echo "$rows" | grep -c .)" = $want ] || fail "ib_$1: $(echo "$rows" | grep -c .) result rows, want $want"
	case "$1" in
	*_bw) # bytes iters BW-peak BW-avg MsgRate (Gb/s)
		echo "$rows" | while read -r s n pk avg _; do
			result "ib_$name-$TAG" size="$s" iters="$n" gbps_avg="$avg" gbps_peak="$pk"
		done ;;
	*_lat) # bytes iters t_min t_max t_typical t_avg ...
		echo "$rows" | while read -r s n _ _ typ avg _; do
			result "ib_$name-$TAG" size="$s" iters="$n" usec_typical="$typ" usec_avg="$avg"
		done ;;
	esac
}

# qperf_test TEST: one qperf client run, its output in QPERF_OUT and printed.
# Its bandwidth tests keep 1024 messages posted, all of which still go out
# after the timer (a graceful close drains the SQ): 16 KiB keeps that tail
# (and the captures pcap-check reads) small.
# -ws: the server may still be starting. -to: qperf's 5 s for its exchanges
# after a test is too short for TCG on a busy host (the posted work drains
# first). A test is run again only when its RDMA connection was
# refused: qperf 0.4.11's server sends the client its rdma_cm port before it
# calls rdma_listen, so a quick client's SYN can find no listener (RST).
qperf_test() {
	local i rc
	for i in 1 2 3; do
		QPERF_OUT=$(timeout 300 qperf -cm1 -lp 19765 -ws 120 -to 60 -t "${RNIC_QPERF_SECS:-2}" \
			-m "${RNIC_QPERF_SIZE:-16K}" "$RNIC_PEER" "$1" 2>&1)
		rc=$?
		echo "$QPERF_OUT"
		[ $rc = 0 ] && return 0
		echo "$QPERF_OUT" | grep -q "unexpected event from RDMA CM: Event rejected" || return 1
		say "qperf $1: RDMA connection refused before the server listened (try $i)"
		sleep 1
	done
	return 1
}

# strace_count FILE: the ioctl + write calls in a strace -c summary.
strace_count() {
	awk '$NF == "ioctl" || $NF == "write" { n += ($4 ~ /^[0-9]+$/) ? $4 : $3 } END { print n + 0 }' "$1"
}

client() { # client TOOL
	local out pings f1 f2 c1 c2 i rc
	case "$1" in
	devinfo) devinfo ;;
	rping)
		rping_try "$(pair_name rping)" -a "$RNIC_PEER" -p "$(port rping)" \
			-C "${RNIC_RPING_COUNT:-1000}" -v -V || fail "rping client"
		echo "$RPING_OUT" >"$RNIC_OUT/rping-client.txt"
		echo "$RPING_OUT" | tail -3
		# stderr is unbuffered, stdout is not: rping's final "client DISCONNECT
		# EVENT..." can land inside a "ping data" line, so count the ping tags.
		pings=$(echo "$RPING_OUT" | grep -o "data: rdma-ping-[0-9]*: " | sort -u | grep -c .)
		result "rping-$TAG" pings="$pings" verified=yes
		if [ "$pings" != "${RNIC_RPING_COUNT:-1000}" ]; then
			echo "$RPING_OUT" | grep -v "^ping data: rdma-ping-[0-9]*: "
			echo "$RPING_OUT" | sed -n 's/.*data: rdma-ping-\([0-9]*\):.*/\1/p' |
				awk 'NR == 1 && $1 != 0 { print "first ping " $1 } NR > 1 && $1 != p + 1 { print "missing after " p } { p = $1 }'
			fail "rping: $pings pings verified"
		fi
		echo "$RPING_OUT" | grep -qi "data mismatch\|error" && fail "rping reported an error"
		;;
	ucmatose)
		out=$(retry 180 timeout 400 ucmatose -s "$RNIC_PEER" -p "$(port ucmatose)" \
			-c "${RNIC_UCMA_CONNS:-4}" -C "${RNIC_UCMA_MSGS:-10}" 2>&1) ||
			{ echo "$out"; fail "ucmatose client"; }
		echo "$out" | tail -12
		echo "$out" | grep -q "^test complete" || fail "ucmatose: no 'test complete'"
		echo "$out" | grep -qi "error\|fail" && fail "ucmatose reported an error"
		result "ucmatose-$TAG" conns="${RNIC_UCMA_CONNS:-4}" msgs="${RNIC_UCMA_MSGS:-10}" complete=yes
		;;
	rdmacm)
		out=$(retry 180 timeout 120 rdma_client -s "$RNIC_PEER" -p "$(port rdmacm)" 2>&1) ||
			{ echo "$out"; fail "rdma_client"; }
		echo "$out"
		echo "$out" | grep -q "rdma_client: end 0" || fail "rdma_client did not end 0"
		result "rdmacm-$TAG" end=0
		;;
	write_bw | read_bw | send_bw | srq_bw | write_lat | read_lat | send_lat) perf_client "$1" ;;
	atomic_bw | atomic_lat)
		for ATOMIC_OP in FETCH_AND_ADD CMP_AND_SWAP; do
			perf_client "$1"
			sleep 2
		done ;;
	atomics)
		rfc7306_on
		# Exit 2: no connection (the server may not listen yet), tried again;
		# 1: a value check failed.
		for i in $(seq 1 30); do
			out=$(timeout 120 "$RNIC_ATOMIC_CHECK" client "$RNIC_PEER" "$(port atomics)" 2>&1)
			rc=$?
			[ $rc = 2 ] || break
			sleep 2
		done
		echo "$out"
		[ $rc = 0 ] || fail "rnic-atomic-check client exited $rc"
		result "atomics-$TAG" checks="$(echo "$out" | grep -c '^ok ')" failed=0
		;;
	qperf)
		rfc7306_on
		out=""
		for t in rc_bw rc_lat rc_rdma_write_bw rc_rdma_write_lat rc_rdma_read_bw rc_rdma_read_lat; do
			if ! qperf_test "$t"; then
				# The server serves until told to quit: don't leave it to its timeout.
				timeout 30 qperf -lp 19765 "$RNIC_PEER" quit
				fail "qperf $t"
			fi
			out+=$QPERF_OUT$'\n'
		done
		timeout 60 qperf -lp 19765 "$RNIC_PEER" quit || fail "qperf quit"
		for t in rc_bw rc_lat rc_rdma_write_bw rc_rdma_write_lat rc_rdma_read_bw rc_rdma_read_lat; do
			echo "$out" | grep -A1 "^$t:" | grep -qE "(bw|latency) *= *[0-9.]+" || fail "qperf $t: no result"
			result "qperf-$t-$TAG" "$(echo "$out" | grep -A1 "^$t:" | tail -1 | awk '{print $1 "=" $3 $4}')"
		done
		;;
	strace)
		f1=/tmp/strace-100.txt f2=/tmp/strace-2000.txt
		retry 180 timeout 300 strace -c -f -o $f1 ib_write_bw -R -d "$DEV" -p "$(port strace)" -s 4096 \
			-n 100 "$RNIC_PEER" >/dev/null || fail "strace ib_write_bw -n 100"
		sleep 2
		retry 180 timeout 300 strace -c -f -o $f2 ib_write_bw -R -d "$DEV" -p "$(port strace2)" -s 4096 \
			-n 2000 "$RNIC_PEER" >/dev/null || fail "strace ib_write_bw -n 2000"
		say "strace -c -f, ib_write_bw -R 4 KiB x 100:"
		cat $f1
		say "strace -c -f, ib_write_bw -R 4 KiB x 2000:"
		cat $f2
		c1=$(strace_count $f1) c2=$(strace_count $f2)
		result "strace-$TAG" msgs_a=100 ioctl_write_a="$c1" msgs_b=2000 ioctl_write_b="$c2"
		# 1900 more messages: allow a handful of extra calls (CM timing), not one per message.
		[ $((c2 - c1)) -le 20 ] || fail "ioctl+write calls grow with the messages: $c1 for 100, $c2 for 2000"
		;;
	counters) counters ;;
	nvmeof) nvmeof_host ;;
	*) fail "unknown tool $1" ;;
	esac
	return 0 # every failure above ends in fail (exit)
}

# check_wire TOOL: the server ports of its connections in this run and the
# RDMAP opcodes it must put on the wire, for lab.py's per-check capture rule
# (tests/conformance/pcap-check.py --check); none for tools without RDMA
# connections of their own or with ports chosen at run time (qperf's).
check_wire() {
	case "$1" in
	rping) echo "ports=$(port rping) opcodes=0,1,2,3" ;;
	ucmatose) echo "ports=$(port ucmatose) opcodes=3" ;;
	rdmacm) echo "ports=$(port rdmacm) opcodes=3" ;;
	write_bw | write_lat) echo "ports=$(port "$1") opcodes=0" ;;
	read_bw | read_lat) echo "ports=$(port "$1") opcodes=1,2" ;;
	atomic_bw | atomic_lat) echo "ports=$(port "$1"),$(ATOMIC_OP=CMP_AND_SWAP port "$1") opcodes=10,11" ;;
	atomics) echo "ports=$(port atomics) opcodes=1,2,3,10,11" ;;
	send_bw | srq_bw | send_lat) echo "ports=$(port "$1") opcodes=3" ;;
	strace) echo "ports=$(port strace),$(port strace2) opcodes=0" ;;
	counters) echo "ports=$(port counters) opcodes=0,1,2,3" ;;
	nvmeof) echo "ports=$(port nvmeof) opcodes=0,1,2,3" ;;
	esac
}

# A tool may be given as TOOL:SIZE (perftest: that size only, else RNIC_PERF_SIZE
# or -a; ucmatose: CONNSxMSGS) and may repeat (each run on its own ports).
# Each runs in a subshell, so a failing one (fail exits its subshell) does not
# stop the next; each is one check, named TOOL[-SIZE], announced up front
# (RNIC-PLAN) and reported (RNIC-CHECK ok|fail NAME ...) by both guests for
# lab.py --tap. The script fails if any check failed.
# RNIC_USER_BOTH_WAYS=1: the tools run twice in one boot, guest 1 serving
# them (direction 1), then guest 2 (direction 2), each run on ports of its
# own; each check is named TOOL[-SIZE]-SERVER-CLIENT by the guests' stacks
# (rping-rnic-siw, then rping-siw-rnic).
TOOLS=${RNIC_TOOLS:-devinfo rping ucmatose rdmacm}
directions=1
[ "${RNIC_USER_BOTH_WAYS:-0}" = 1 ] && directions="1 2"
# check_name DIRECTION TOOL: the check's name in this boot.
check_name() {
	local n=${2/:/-}
	[ "$directions" = 1 ] || n+=-$(stack_of "$1")-$(stack_of $((3 - $1)))
	echo "$n"
}
RUN=0 FAILED=0
plan=()
for d in $directions; do
	for t in $TOOLS; do
		plan+=("$(check_name "$d" "$t")")
	done
done
echo "RNIC-PLAN ${plan[*]}"
for d in $directions; do
	# lib.sh's server/client pairs follow SERVER_GUEST.
	SERVER_GUEST=$d
	RNIC_ROLE=client
	[ "$RNIC_GUEST_ID" = "$d" ] && RNIC_ROLE=server
	for t in $TOOLS; do
		SIZE=${RNIC_PERF_SIZE:-}
		name=$(check_name "$d" "$t")
		case "$t" in *:*) SIZE=${t#*:} t=${t%%:*} ;; esac
		say "=== $name${SIZE:+ $SIZE} (run $RUN, guest$d serves) ==="
		(
			if [ "$t" = ucmatose ] && [ -n "$SIZE" ]; then
				RNIC_UCMA_CONNS=${SIZE%x*} RNIC_UCMA_MSGS=${SIZE#*x} SIZE=
			fi
			if [ "$RNIC_ROLE" = server ]; then
				serve "$t"
			else
				sleep 2
				client "$t"
			fi
		)
		rc=$?
		if [ $rc = 0 ]; then
			echo "RNIC-CHECK ok $name $(check_wire "$t")"
		else
			echo "RNIC-CHECK fail $name $(check_wire "$t")"
			FAILED=$((FAILED + 1))
		fi
		RUN=$((RUN + 1))
	done
done
[ $FAILED = 0 ] || fail "$FAILED of ${#plan[@]} checks failed"
exit 0
