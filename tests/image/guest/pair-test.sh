#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside a standalone image (tests/image), guest 1 as server, guest 2 as
# client, in one boot: the image's own checks (the guest kit installed with
# dpkg, rnic.ko from DKMS for this kernel, the provider from the system's
# libibverbs, no 9p mount), then rping -V, ib_write_bw -R, ib_read_lat -R and
# NVMe-oF over RDMA with fio --verify, then the conformance cells if the test
# disk has them. Guests talk only over the rnic wire: the client tells the
# server it is done through a TCP control port.
# Environment (env in the test archive): ROLE, IP, PEER, PEER_MAC, NVME_MIB.
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

# retry SECONDS CMD...: the client retries while the server is not listening yet.
retry() {
	local end=$((SECONDS + $1)) out rc
	shift
	while :; do
		out=$(timeout 120 "$@" 2>&1)
		rc=$?
		echo "$out" | tail -25
		[ $rc = 0 ] && return 0
		echo "$out" | grep -qi "refused\|REJECTED\|UNREACHABLE\|Couldn't connect\|ADDR_ERROR" || return $rc
		[ $SECONDS -lt $end ] || return $rc
		sleep 2
	done
}
rping_client() {
	local out
	out=$(retry 120 rping -c -V -v -a "$PEER" -p 7174 -C 100 -S 1024) || { echo "$out" | tail -5; return 1; }
	[ "$(echo "$out" | grep -c "ping data")" -ge 1 ]
}

# perf TOOL PORT SIZE [ARGS]: the perftest client over rdma_cm; its result
# row (size, iterations, then bandwidth or latency columns) as a RESULT line.
perf() {
	local out rc
	out=$(retry 120 "ib_$1" -R -d "$DEV" -p "$2" -n 300 -s "$3" "${@:4}" "$PEER")
	rc=$?
	echo "$out"
	[ $rc = 0 ] || return $rc
	result "$1 $(echo "$out" | awk -v s="$3" '$1 == s && $2 == 300 { $1 = $1; print; exit }')"
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

# The conformance cells, when tests/conformance/image-matrix.py put them on the
# test disk: after the pair's own tests, while the server still serves.
cells() {
	[ -f /run/rnic-test/cells.txt ] || return 0
	. /run/rnic-test/conformance-cells.sh && run_cells
}

say "$(. /etc/os-release; echo "$PRETTY_NAME"), kernel $(uname -r)"
check kit-installed kit_installed
check module-from-dkms module_from_dkms
check no-9p no_9p
check net-up net_up
check rdma-device rdma_dev

if [ "$ROLE" = server ]; then
	check rping-server timeout 300 rping -s -V -a "$IP" -p 7174 -C 100 -S 1024
	check write-bw-server timeout 300 ib_write_bw -R -d "$DEV" -p 18515 --report_gbits -n 300 -s 65536
	check read-lat-server timeout 300 ib_read_lat -R -d "$DEV" -p 18516 -n 300 -s 8
	check nvmeof-target nvme_target
	cells
	# Serve until the client reports (the only channel is the rnic wire).
	msg=$(timeout 600 nc -l "$IP" $CTL_PORT)
	say "client says: $msg"
	check client-done test "$msg" = "client-done"
else
	check rping-client rping_client
	check write-bw-client perf write_bw 18515 65536 --report_gbits
	check read-lat-client perf read_lat 18516 8
	check nvmeof-fio-verify nvme_host
	cells
	for i in $(seq 1 120); do echo client-done | nc -N "$PEER" $CTL_PORT 2>/dev/null && break; sleep 1; done
fi
check kernel-clean kernel_clean
say "$FAILS failed checks"
exit $((FAILS > 0))
