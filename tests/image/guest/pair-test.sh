#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside a standalone image (tests/image), guest 1 as server, guest 2 as
# client, in one boot: the image's own checks (the guest kit installed with
# dpkg, rnic.ko from DKMS for this kernel, the provider from the system's
# libibverbs, no 9p mount), then rping -V, ib_write_bw -R, ib_read_lat -R and
# NVMe-oF over RDMA with fio --verify, then the conformance cells if the test
# disk has them. Guests talk only over the rnic wire: each side listens on a
# TCP control port and tells the other how each attempt of a pair check ended.
# Environment (env in the test archive): ROLE, IP, PEER, PEER_MAC, NVME_MIB;
# optional CHECKS (which pair checks, in order; default all four), REPEAT
# (each of them N times in this boot), CHECK_S (each check's deadline) and
# SERVER_LATE (seconds the server waits before each pair check's tool).
set -o pipefail
say() { echo "[$ROLE $(cut -d' ' -f1 /proc/uptime)s] $*"; }
FAILS=0
check() { # check NAME CMD...: runs CMD, prints CHECK NAME ok|FAIL
	local name=$1
	shift
	if "$@"; then echo "CHECK $name ok"; else echo "CHECK $name FAIL"; FAILS=$((FAILS + 1)); fi
}
result() { echo "RESULT $*"; }
CTL_PORT=7099 NQN=nqn.2026-12.invalid.rnic:image NVME_PORT=4420

kit_installed() {
	local p
	dpkg -l | grep -i rnic
	for p in rnic-dkms rnic-ibverbs-provider; do
		dpkg -l "$p" 2>/dev/null | grep -q '^ii' || { say "$p is not installed"; return 1; }
	done
	# The provider comes with the system's libibverbs (no LD_LIBRARY_PATH).
	[ -z "${LD_LIBRARY_PATH:-}" ] || return 1
	ls /etc/libibverbs.d/ | grep -q rnic || { say "no rnic .driver in /etc/libibverbs.d"; return 1; }
}
module_from_dkms() {
	local f
	f=$(modinfo -n rnic 2>/dev/null) || { say "modinfo: no rnic module for $(uname -r)"; return 1; }
	say "rnic module: $f"
	case "$f" in */updates/dkms/*) ;; *) return 1 ;; esac
	# udev loads it for the PCI function (modalias), maybe after we start.
	local i
	for i in $(seq 1 120); do [ -d /sys/module/rnic ] && return 0; sleep 0.5; done
	say "rnic.ko was not loaded for the device"
	return 1
}
no_9p() {
	! grep -E ' (9p|virtiofs) ' /proc/mounts && ! ls /sys/bus/virtio/drivers/9pnet_virtio/virtio* >/dev/null 2>&1
}

# The rnic interface: the netdev whose PCI driver is rnic; its name follows
# the distribution's naming rules (eth0 with net.ifnames=0).
rnic_netdev() {
	local d
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = rnic ] && { basename "$d"; return 0; }
	done
	return 1
}
net_up() {
	local i
	for i in $(seq 1 100); do NETDEV=$(rnic_netdev) && break; sleep 0.2; done
	[ -n "$NETDEV" ] || { say "no rnic network interface"; ls /sys/class/net; return 1; }
	ip addr add "$IP/24" dev "$NETDEV" && ip link set "$NETDEV" up || return 1
	# A permanent neighbour: no ARP retries from a CPU-starved TCG peer.
	ip neigh replace "$PEER" lladdr "$PEER_MAC" dev "$NETDEV" nud permanent
	# The peer may boot minutes later on a loaded host (TCG): wait up to ~5 min.
	for i in $(seq 1 300); do ping -c1 -W1 "$PEER" >/dev/null 2>&1 && { say "$NETDEV up, $PEER answers"; return 0; }; done
	say "peer $PEER does not answer ping"
	return 1
}
rdma_dev() {
	local i
	# udev renames the RDMA device after it appears (rdma-core's naming
	# rules: rnic0 becomes iwp0s2 on trixie); take its name once udev is done.
	udevadm settle --timeout=120
	for i in $(seq 1 100); do
		DEV=$(ls /sys/class/infiniband 2>/dev/null | head -1)
		[ -n "$DEV" ] && { say "RDMA device $DEV"; ibv_devinfo -d "$DEV" | grep -E "hca_id|transport|state|link_layer"; return 0; }
		sleep 0.2
	done
	return 1
}
kernel_clean() {
	local bad
	# "unknown parameter": a boot flag that names a module (rnic.X) is
	# handed to that module by modprobe, which refuses it.
	bad=$(dmesg | grep -v "Command line:" | grep -E "Oops|BUG:|WARNING:|Call Trace|unknown parameter" -A12)
	[ -z "$bad" ] && return 0
	echo "$bad"
	return 1
}

# The server is not listening (yet): rping names the rdma_cm event, perftest
# prints only its number ("Unexpected CM event bl blka 8": 7 UNREACHABLE,
# 8 REJECTED, which is what a connect to a port nobody listens on gets).
NOT_LISTENING="refused\|REJECTED\|UNREACHABLE\|Couldn't connect\|ADDR_ERROR\|CM event bl blka [78]\$"

# retry SECONDS CMD...: the client retries while the server is not listening
# yet (the conformance cells' rping); each retry is named in the output.
retry() {
	local end=$((SECONDS + $1)) out rc n=0
	shift
	while :; do
		out=$(timeout 120 "$@" 2>&1)
		rc=$?
		echo "$out" | tail -25
		[ $rc = 0 ] && return 0
		echo "$out" | grep -qi "$NOT_LISTENING" || return $rc
		[ $SECONDS -lt $end ] || return $rc
		n=$((n + 1))
		echo "RETRY $1 connect $n: the server was not listening yet ($(echo "$out" | grep -i -m1 "$NOT_LISTENING"))"
		sleep 2
	done
}

# The control channel: TCP over the rnic netdev (the guests' only link). Each
# side keeps a listener that appends what the peer says to CTL_LOG.
CTL_LOG=/run/rnic-ctl.log
ctl_listen() {
	: >"$CTL_LOG"
	nc -lk "$IP" $CTL_PORT </dev/null >>"$CTL_LOG" 2>/dev/null &
	CTL_PID=$!
}
ctl_send() { # ctl_send MESSAGE: one line to the peer's listener
	local i
	for i in $(seq 1 30); do
		echo "$*" | nc -N -w 5 "$PEER" $CTL_PORT 2>/dev/null && return 0
		sleep 1
	done
	say "could not tell the peer: $*"
	return 1
}
peer_said() { # peer_said NAME ATTEMPT: the peer's verdict on that attempt, if given
	local line
	line=$(grep -m1 "^$1 $2 " "$CTL_LOG") || return 1
	echo "${line#"$1 $2 "}"
}

# Known harness-side failures, worth one more attempt of the whole pair check:
# perftest fits its cycle counter to the clock and gives up when a starved
# TCG vCPU spoils the fit.
retry_cause() { # retry_cause LOG
	grep -q "Can't produce a report" "$1" && echo "perftest's clock fit failed (Can't produce a report)"
}

# evidence NAME LOG: what a hung or failed attempt leaves for the reader.
evidence() {
	echo "--- $1: the tool's last output"
	tail -15 "$2"
	echo "--- $1: dmesg tail"
	dmesg | tail -15
	echo "---"
}

# client_attempt NAME LOG END CMD...: one client attempt, connects retried
# (named) while the server is not listening yet; rc 124 when END passed.
client_attempt() {
	local name=$1 log=$2 end=$3 rc n=0
	shift 3
	while :; do
		timeout $((end - SECONDS > 1 ? end - SECONDS : 1)) "$@" >"$log" 2>&1
		rc=$?
		[ $rc = 0 ] || [ $rc = 124 ] && return $rc
		grep -qi "$NOT_LISTENING" "$log" || return $rc
		[ $((SECONDS + 5)) -lt "$end" ] || return $rc
		n=$((n + 1))
		echo "RETRY $name connect $n: the server was not listening yet ($(grep -i -m1 "$NOT_LISTENING" "$log"))"
		sleep 2
	done
}

# pair_check NAME CMD...: one check with a tool on each side (server and
# client run this with their own CMD), within its own deadline (CHECK_S s per
# attempt) on both sides, so a hang costs that check and not the boot's
# budget. After each attempt the two sides exchange verdicts (ok, fail:RC,
# hung, retry:CAUSE) and decide alike: a known harness cause (retry_cause)
# runs the pair again, named in the output (RETRY), at most twice. The
# server's tool also ends when the client has given up on the attempt.
# Prints CHECK NAME-ROLE ok|FAIL; a hang prints HUNG with the evidence.
pair_check() {
	local name=$1 attempt=0 end rc log mine peer pid t0 cause stopped
	shift
	while :; do
		attempt=$((attempt + 1))
		log=/tmp/$name.$attempt.log
		t0=$SECONDS
		end=$((SECONDS + CHECK_S))
		stopped=
		if [ "$ROLE" = server ]; then
			# SERVER_LATE: start late, as a slow server does (the
			# client's connect then finds no listener).
			sleep "${SERVER_LATE:-0}"
			"$@" >"$log" 2>&1 &
			pid=$!
			while kill -0 $pid 2>/dev/null && [ $SECONDS -lt $end ] && ! peer_said "$name" $attempt >/dev/null; do
				sleep 0.5
			done
			# The client is done with this attempt: give the tool a moment
			# to finish its own side (a failed client does not come back).
			if kill -0 $pid 2>/dev/null && peer_said "$name" $attempt | grep -q '^ok'; then
				for _ in $(seq 1 40); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
			fi
			if kill -0 $pid 2>/dev/null; then
				peer_said "$name" $attempt >/dev/null && stopped=$(peer_said "$name" $attempt)
				kill $pid 2>/dev/null
				sleep 1
				kill -9 $pid 2>/dev/null
				wait $pid
				rc=124
			else
				wait $pid
				rc=$?
			fi
		else
			client_attempt "$name" "$log" "$end" "$@"
			rc=$?
		fi
		cat "$log"
		cause=$(retry_cause "$log")
		if [ -n "$cause" ]; then mine="retry:$cause"
		elif [ -n "$stopped" ]; then mine="stopped"
		elif [ $rc = 0 ]; then mine=ok
		elif [ $rc = 124 ]; then mine=hung
		else mine="fail:$rc"
		fi
		ctl_send "$name $attempt $mine"
		# The peer's verdict (it may still be in its attempt: its deadline
		# is as far as ours, plus its tool's teardown).
		while ! peer=$(peer_said "$name" $attempt) && [ $SECONDS -lt $((end + 30)) ]; do sleep 0.5; done
		[ -n "$peer" ] || peer=silent
		say "$name attempt $attempt: $ROLE $mine, peer $peer ($((SECONDS - t0)) s)"
		if [ "$mine" = stopped ]; then
			echo "$name: the client ended its attempt ($stopped) while the server's tool still ran; stopped it"
			evidence "$name" "$log"
		elif [ "$mine" = hung ]; then
			echo "HUNG $name-$ROLE attempt $attempt: no end in $CHECK_S s"
			evidence "$name" "$log"
		elif [ $rc != 0 ]; then
			evidence "$name" "$log"
		fi
		cause=
		case "$mine" in retry:*) cause="$ROLE: ${mine#retry:}" ;; esac
		case "$peer" in retry:*) cause="${cause:+$cause; }peer: ${peer#retry:}" ;; esac
		if [ -n "$cause" ] && [ $attempt -lt 3 ]; then
			echo "RETRY $name attempt $((attempt + 1)): $cause"
			continue
		fi
		LAST_LOG=$log
		if [ $rc = 0 ] && [ -z "$cause" ]; then echo "CHECK $name-$ROLE ok"; return 0; fi
		echo "CHECK $name-$ROLE FAIL"
		FAILS=$((FAILS + 1))
		return 1
	done
}

# perf_result TOOL SIZE: the client's perftest result row (size, iterations,
# then bandwidth or latency columns) as a RESULT line.
perf_result() {
	result "$1 $(awk -v s="$2" '$1 == s && $2 == 300 { $1 = $1; print; exit }' "$LAST_LOG")"
}

nvme_target() {
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 && modprobe nvmet-rdma || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	local s=/sys/kernel/config/nvmet/subsystems/$NQN p=/sys/kernel/config/nvmet/ports/1
	mkdir "$s" && echo 1 >"$s/attr_allow_any_host" && mkdir "$s/namespaces/1" &&
		echo /dev/nullb0 >"$s/namespaces/1/device_path" && echo 1 >"$s/namespaces/1/enable" &&
		mkdir "$p" && echo rdma >"$p/addr_trtype" && echo ipv4 >"$p/addr_adrfam" &&
		echo "$IP" >"$p/addr_traddr" && echo $NVME_PORT >"$p/addr_trsvcid" &&
		ln -s "$s" "$p/subsystems/$NQN" && say "nvmet: $NQN on $IP:$NVME_PORT (rdma)"
}
nvme_host() {
	local i devnode t0 t1
	modprobe nvme-rdma || return 1
	for i in $(seq 1 60); do
		nvme connect -t rdma -a "$PEER" -s $NVME_PORT -n "$NQN" && break
		sleep 2
	done
	for i in $(seq 1 100); do devnode=$(ls /dev/nvme*n1 2>/dev/null | head -1); [ -n "$devnode" ] && break; sleep 0.2; done
	[ -n "$devnode" ] || { say "no namespace appeared"; return 1; }
	say "connected: $devnode"
	t0=$(date +%s.%N)
	fio --name=rnic-verify --filename="$devnode" --rw=write --bs=128k --size="${NVME_MIB}M" \
		--ioengine=libaio --iodepth=4 --direct=1 --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --output-format=terse --terse-version=3 >/tmp/fio.out 2>&1
	local rc=$?
	t1=$(date +%s.%N)
	cut -d';' -f1-8 /tmp/fio.out | head -3
	grep -i "verify\|error" /tmp/fio.out | head -5
	nvme disconnect -n "$NQN" || rc=1
	[ $rc = 0 ] && result "nvmeof-fio-verify mib=$NVME_MIB s=$(echo "$t0 $t1" | awk '{printf "%.1f", $2-$1}')"
	return $rc
}

# deadline_check NAME FUNC: check NAME FUNC within CHECK_S s (the function in
# a child bash that timeout ends with all it started); a hang prints HUNG.
deadline_check() {
	local rc
	# shellcheck disable=SC2163 # the function named by $2
	export -f "$2" say result
	export ROLE PEER NQN NVME_PORT NVME_MIB
	timeout "$CHECK_S" bash -c "$2" 2>&1 | tee "/tmp/$1.log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" = 124 ]; then
		echo "HUNG $1: no end in $CHECK_S s"
		evidence "$1" "/tmp/$1.log"
	fi
	if [ "$rc" = 0 ]; then echo "CHECK $1 ok"; else echo "CHECK $1 FAIL"; FAILS=$((FAILS + 1)); fi
}

# The conformance cells, when tests/conformance/image-matrix.py put them on the
# test disk: after the pair's own tests, while the server still serves.
cells() {
	[ -f /run/rnic-test/cells.txt ] || return 0
	. /run/rnic-test/conformance-cells.sh && run_cells
}

# rping's client can exit 0 without a ping when its connection dies: its
# output, and success only with pings through (a script: timeout runs it).
RPING_PINGS='out=$(rping "$@" 2>&1); rc=$?; echo "$out"; [ $rc = 0 ] && echo "$out" | grep -q "ping data"'

# The pair checks: NAME, then the server's and the client's command.
pair_checks() { # pair_checks NAME: runs this side of pair check NAME
	local n=$1 c=${1%-r[0-9]*}
	case "$ROLE:$c" in
	server:rping) pair_check "$n" rping -s -V -a "$IP" -p 7174 -C 100 -S 1024 ;;
	client:rping) pair_check "$n" bash -c "$RPING_PINGS" rping -c -V -v -a "$PEER" -p 7174 -C 100 -S 1024 ;;
	server:write-bw) pair_check "$n" ib_write_bw -R -d "$DEV" -p 18515 --report_gbits -n 300 -s 65536 ;;
	client:write-bw)
		pair_check "$n" ib_write_bw -R -d "$DEV" -p 18515 --report_gbits -n 300 -s 65536 "$PEER" &&
			perf_result write_bw 65536 ;;
	server:read-lat) pair_check "$n" ib_read_lat -R -d "$DEV" -p 18516 -n 300 -s 8 ;;
	client:read-lat) pair_check "$n" ib_read_lat -R -d "$DEV" -p 18516 -n 300 -s 8 "$PEER" && perf_result read_lat 8 ;;
	server:nvmeof) check nvmeof-target nvme_target ;;
	client:nvmeof) deadline_check nvmeof-fio-verify nvme_host ;;
	esac
}

CHECKS=${CHECKS:-rping write-bw read-lat nvmeof} REPEAT=${REPEAT:-1} CHECK_S=${CHECK_S:-120}
say "$(. /etc/os-release; echo "$PRETTY_NAME"), kernel $(uname -r)"
plan=(kit-installed module-from-dkms no-9p net-up rdma-device)
runs=()
for c in $CHECKS; do
	for r in $(seq 1 "$REPEAT"); do
		n=$c
		[ "$REPEAT" = 1 ] || n=$c-r$r
		[ "$c" = nvmeof ] && [ "$r" -gt 1 ] && continue
		runs+=("$n")
		case "$ROLE:$c" in
		server:nvmeof) plan+=(nvmeof-target) ;;
		client:nvmeof) plan+=(nvmeof-fio-verify) ;;
		*) plan+=("$n-$ROLE") ;;
		esac
	done
done
[ "$ROLE" = server ] && plan+=(client-done)
plan+=(kernel-clean)
echo "PLAN ${plan[*]}"
say "pair checks: ${runs[*]} (each within $CHECK_S s)"
check kit-installed kit_installed
check module-from-dkms module_from_dkms
check no-9p no_9p
check net-up net_up
ctl_listen
check rdma-device rdma_dev

for n in "${runs[@]}"; do
	pair_checks "$n"
done
cells
if [ "$ROLE" = server ]; then
	# Serve until the client reports: it may still be in its NVMe-oF check
	# or the conformance cells.
	wait_s=$((CHECK_S + 60))
	[ -f /run/rnic-test/cells.txt ] && wait_s=900
	end=$((SECONDS + wait_s))
	while ! grep -q '^client-done' "$CTL_LOG" && [ $SECONDS -lt $end ]; do sleep 0.5; done
	check client-done grep -q '^client-done' "$CTL_LOG"
else
	ctl_send client-done
fi
kill "$CTL_PID" 2>/dev/null
check kernel-clean kernel_clean
say "$FAILS failed checks"
exit $((FAILS > 0))
