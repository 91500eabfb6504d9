# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for lab guest scripts (sourced; bash). The lab sets RNIC_IP, RNIC_PEER,
# RNIC_ROLE, RNIC_MTU, RNIC_NIC, RNIC_STAGE, RNIC_CACHE, RNIC_OUT, RNIC_KVER.

# Each line carries the guest's uptime: when a guest stalls, the log shows where.
say() { echo "[guest$RNIC_GUEST_ID $(cut -d' ' -f1 /proc/uptime)s] $*"; }
fail() { say "FAIL: $*"; exit 1; }
# Lines the host-side tests parse: RESULT <name> <key>=<value> ...
result() { echo "RESULT $*"; }
# rdma_res_count SUMMARY OBJ: how many OBJ (qp, mr, ...) an `rdma resource show`
# summary lists for the rnic device (empty if none).
rdma_res_count() { echo "$1" | grep rnic | grep -oE " $2 [0-9]+" | awk '{print $2}'; }

# wait_fpdus N SECONDS: until the rnic device has received N more FPDUs than
# when called (rdma statistic's iwFpduReceived): traffic on a live
# connection, waited for rather than slept for. Fails after SECONDS.
wait_fpdus() {
	local dev n0 n end=$((SECONDS + $2))
	dev=$(ls /sys/class/infiniband | head -1)
	n0=$(rdma statistic show link "$dev/1" | grep -oE "iwFpduReceived [0-9]+" | cut -d' ' -f2)
	while :; do
		n=$(rdma statistic show link "$dev/1" | grep -oE "iwFpduReceived [0-9]+" | cut -d' ' -f2)
		[ $((${n:-0} - ${n0:-0})) -ge "$1" ] && break
		[ $SECONDS -lt $end ] || fail "$dev received $((${n:-0} - ${n0:-0})) FPDUs in $2 s, want $1"
		sleep 0.2
	done
	say "$dev: $((n - n0)) FPDUs received"
}

modprobe() { "$RNIC_LAB_DIR/guest/modprobe-wrapper" "$@"; }

# The first Ethernet interface (the lab gives each guest exactly one NIC).
lab_netdev() {
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/type" 2>/dev/null)" = 1 ] && [ -e "$d/device" ] && { basename "$d"; return; }
	done
	return 1
}

net_up() {
	local tries=0
	case "$RNIC_NIC" in
	virtio) modprobe virtio_net || fail "modprobe virtio_net" ;;
	rnic)
		# rnic.ko's ib_device part links against ib_core and ib_uverbs.
		# RNIC_GUEST_KO: another build of it (a work tree's, by hand).
		modprobe ib_uverbs || fail "modprobe ib_uverbs"
		insmod "${RNIC_GUEST_KO:-$RNIC_CACHE/build/guest-driver-6.12/rnic.ko}" || fail "insmod rnic.ko" ;;
	esac
	until NETDEV=$(lab_netdev); do
		tries=$((tries + 1))
		[ $tries -gt 50 ] && fail "no network interface appeared"
		sleep 0.1
	done
	ip link set "$NETDEV" mtu "$RNIC_MTU" || fail "mtu $RNIC_MTU on $NETDEV"
	ip addr add "$RNIC_IP/24" dev "$NETDEV" || fail "address on $NETDEV"
	ip link set "$NETDEV" up || fail "link up $NETDEV"
	export NETDEV
	say "$NETDEV up: $RNIC_IP/24 mtu $RNIC_MTU"
}

# vlan_up VID: an 802.1Q VLAN interface NETDEV.VID on NETDEV, with this
# guest's address on 10.78.0.0/24 (same host number); NETDEV, RNIC_IP and
# RNIC_PEER move to it, so what follows runs over the VLAN (a software RDMA
# device then binds to the VLAN interface).
vlan_up() {
	local v=$NETDEV.$1
	modprobe 8021q || fail "modprobe 8021q"
	ip link add link "$NETDEV" name "$v" type vlan id "$1" || fail "VLAN $1 on $NETDEV"
	ip addr add "10.78.0.${RNIC_IP##*.}/24" dev "$v" || fail "address on $v"
	ip link set "$v" up || fail "link up $v"
	NETDEV=$v RNIC_IP=10.78.0.${RNIC_IP##*.} RNIC_PEER=10.78.0.${RNIC_PEER##*.}
	export NETDEV RNIC_IP RNIC_PEER
	say "$v up: $RNIC_IP/24 (VLAN $1)"
}

wait_peer() {
	local i
	for i in $(seq 1 60); do
		ping -c1 -W1 "$RNIC_PEER" >/dev/null 2>&1 && return 0
	done
	fail "peer $RNIC_PEER does not answer ping"
}

# stack_of GUEST: the RDMA stack of lab guest GUEST (1, 2): rnic, or for a
# virtio-net guest the software stack RNIC_SOFT (default siw); read from that
# guest's environment file in the run directory.
stack_of() {
	local nic
	nic=$(sed -n "s/^export RNIC_NIC='\(.*\)'$/\1/p" "$RNIC_RUN_DIR/guest$1.env")
	if [ "$nic" = rnic ]; then echo rnic; else echo "${RNIC_SOFT:-siw}"; fi
}

# soft_rdma_up siw|rxe [SIW_VARIANT]: a software RDMA device on $NETDEV, named
# siw0/rxe0 (DEV). siw comes from the variants kernel.sh builds (default: siw).
soft_rdma_up() {
	modprobe ib_uverbs || fail "ib_uverbs"
	modprobe rdma_ucm || fail "rdma_ucm"
	case "$1" in
	siw)
		modprobe libcrc32c
		modprobe crc32c_generic
		insmod "$RNIC_CACHE/kernel/6.12/${2:-siw}/siw.ko" || fail "insmod ${2:-siw}"
		;;
	rxe) modprobe rdma_rxe || fail "rdma_rxe" ;;
	*) fail "soft_rdma_up: $1 is neither siw nor rxe" ;;
	esac
	DEV=${1}0
	rdma link add "$DEV" type "$1" netdev "$NETDEV" || fail "rdma link add $DEV"
}

# The lab's MACs are fixed (52:54:00:00:00:0N for 10.77.0.N): a permanent
# neighbour entry keeps ARP retries of a CPU-starved TCG peer out of RDMA tests.
pin_peer_neigh() {
	local n=${RNIC_PEER##*.}
	ip neigh replace "$RNIC_PEER" lladdr "52:54:00:00:00:$(printf %02x "$n")" dev "$NETDEV" nud permanent ||
		fail "cannot pin the neighbour entry of $RNIC_PEER"
}

# rping_try NAME ARGS...: rping's client can hang when it connects before the
# server listens (and exits 0 when its connection dies), so each attempt is
# bounded and retried while the server was not there yet; NAME is the pair's
# name for serve_until_client_done. Sets RPING_OUT/RPING_RC; fails if no
# attempt ever got a ping through.
rping_try() {
	local name=$1 end=$((SECONDS + 180)) attempt=0
	shift
	while [ $SECONDS -lt $end ]; do
		[ $attempt = 0 ] || retry_marker "$(cmd_port 7174 "$@")" "$name" $attempt
		attempt=$((attempt + 1))
		rping_attempt "$@"
		echo "$RPING_OUT" | grep -q "ping data" && { client_done "$name" ok; return 0; }
		[ $RPING_RC = 124 ] && client_attempt_hung "$name"
		echo "$RPING_OUT" | grep -qi "refused\|REJECTED\|CONNECT_ERROR\|ADDR_ERROR\|UNREACHABLE" ||
			[ $RPING_RC = 124 ] || { client_done "$name" ok; return 0; }
		sleep 2
	done
	client_done "$name" fail
	say "rping: no connection to the server in 180 s"
	return 1
}

# rping_attempt ARGS...: one bounded rping client run into RPING_OUT/RPING_RC;
# like a perftest attempt (client_try), one that has verified no ping
# HANDSHAKE_S seconds after its start is ended as hung (rc 124) then (the
# callers pass -v, which prints each verified ping).
rping_attempt() {
	local log=/tmp/rping_try.out pid t0=$SECONDS stuck=0 seen=0
	timeout 60 stdbuf -oL rping -c "$@" >"$log" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		if [ $seen = 0 ] && grep -q "ping data" "$log"; then
			seen=1
			say "rping: first ping after $((SECONDS - t0)) s" >&2
		elif [ $seen = 0 ] && [ $SECONDS -ge $((t0 + HANDSHAKE_S)) ]; then
			say "rping: no ping in $HANDSHAKE_S s: ending the attempt" >&2
			stuck=1
			kill $pid
			break
		fi
		sleep 1
	done
	wait $pid
	RPING_RC=$?
	[ $stuck = 1 ] && RPING_RC=124
	RPING_OUT=$(cat "$log")
}

# rping_client ARGS...: rping_try for a server served as "rping".
rping_client() { rping_try rping "$@"; }

# siw's accept race (docs/conformance.md): siw_accept sends the MPA Reply before
# its QP takes over the socket, and an FPDU the client sends in that window is
# ACKed but never read, so both sides wait forever. The client ends such an
# attempt by its timeout and reports it on its output share; the server, whose
# one-shot tool still holds the dead connection and no longer listens, starts
# over for the next attempt. Guest 1 serves, guest 2 is the client.

# client_try NAME SECONDS ATTEMPT_SECONDS CMD...: retries CMD while the server is
# not listening yet, each attempt bounded; reports hung attempts and the outcome.
# After an attempt that got past the connection and failed, the server's tool is
# still winding down (seen: 8 s) and may take the next connection without
# receive buffers (siw answers the first Send with a Terminate), so the retry
# waits until the server has started over (at most 20 s: the failure may have
# been the client's alone).
# A refusal alone means the server was not listening yet (retry at once), but
# perftest connects twice (its rdma_cm exchange, then the test QP): when the
# second connect is refused (the server had not listened again yet; seen on the
# stream wire), the exchange fails on both sides ("Bad wc status 5") and the
# server winds down as after any failure past the connection.
# A perftest attempt caught in the accept race never gets past its exchange of
# addresses: one whose "remote address" line has not appeared HANDSHAKE_S
# seconds after its start is ended as hung then, not after its whole bound
# (90 s for 64 KiB bandwidth, 420 s for -a sweeps). Its output is line
# buffered (stdbuf) so the line shows as soon as perftest prints it.
PAST_CONNECT="Bad wc status\|exchange data\|Failed to sync"
HANDSHAKE_S=${RNIC_HANDSHAKE_S:-30}
client_try() {
	local name=$1 end=$((SECONDS + $2)) each=$3 rc log=/tmp/client_try.$1 served attempt=0 pid t0 stuck seen
	shift 3
	while :; do
		[ $attempt = 0 ] || retry_marker "$(cmd_port 18515 "$@")" "$name" $attempt
		attempt=$((attempt + 1))
		served=$(serving_count "$name")
		timeout "$each" stdbuf -oL "$@" >"$log" 2>&1 &
		pid=$! t0=$SECONDS stuck=0 seen=0
		while kill -0 $pid 2>/dev/null; do
			case "$1" in
			ib_*)
				# The time each exchange took shows the bound's margin.
				if [ $seen = 0 ] && grep -q "remote address" "$log"; then
					seen=1
					say "$name: exchange of addresses after $((SECONDS - t0)) s" >&2
				elif [ $seen = 0 ] && [ $SECONDS -ge $((t0 + HANDSHAKE_S)) ]; then
					say "$name: no exchange of addresses in $HANDSHAKE_S s: ending the attempt" >&2
					stuck=1
					kill $pid
					break
				fi ;;
			esac
			sleep 1
		done
		wait $pid
		rc=$?
		[ $stuck = 1 ] && rc=124
		cat "$log"
		[ $rc = 0 ] && { client_done "$name" ok; return 0; }
		[ $rc = 124 ] && client_attempt_hung "$name"
		[ $SECONDS -lt $end ] || break
		sleep 2
		if grep -qi "$PAST_CONNECT" "$log" || ! grep -qi "refused\|REJECTED\|UNREACHABLE" "$log"; then
			wait_server_restart "$name" "$served" 20
		fi
	done
	client_done "$name" fail
	return 1
}

# retry_marker PORT NAME ATTEMPT: before retrying, the client tells the capture
# check that attempt ATTEMPT on server port PORT failed: one UDP datagram to the
# peer's port 9, in both guests' captures between the failed attempt's
# connections and the retry's. tests/conformance/pcap-check.py then accepts a
# DDP "no buffer" Terminate (a Send that beat the server's receive, e.g. into a
# server still winding down, or siw's slow first receive) on exactly those
# earlier connections to PORT.
retry_marker() {
	echo "rnic-lab-retried port=$1 name=$2 attempt=$3" 2>/dev/null >"/dev/udp/$RNIC_PEER/9" ||
		say "$2: could not send the retry marker for port $1"
}

# cmd_port DEFAULT CMD...: the server port CMD's -p gives, else DEFAULT.
cmd_port() {
	local port=$1
	shift
	while [ $# -gt 1 ]; do
		[ "$1" = -p ] && port=$2
		shift
	done
	echo "$port"
}

# The guest that serves the pairs below: 1, unless a script that puts each
# guest in each role in one boot sets SERVER_GUEST (rnic-user-pair.sh).
SERVER_GUEST=${SERVER_GUEST:-1}

# How often the server guest has started NAME's server (serve_until_client_done).
serving_count() { cat "$RNIC_RUN_DIR/out$SERVER_GUEST/$1.serving" 2>/dev/null | wc -l; }

# wait_server_restart NAME COUNT SECONDS: until NAME's server starts again.
wait_server_restart() {
	local end=$((SECONDS + $3))
	while [ "$(serving_count "$1")" -le "$2" ] && [ $SECONDS -lt $end ]; do
		sleep 1
	done
}

# client_done NAME ok|fail: the client is finished with NAME's server.
client_done() { echo "$2" >"$RNIC_OUT/$1.done"; }

client_attempt_hung() {
	say "$1: attempt hung; asking the server to start over" >&2
	echo >>"$RNIC_OUT/$1.hung"
}

hung_reports() { cat "$RNIC_RUN_DIR/out$((3 - SERVER_GUEST))/$1.hung" 2>/dev/null | wc -l; }

# serve_until_client_done NAME SECONDS CMD...: runs the one-shot server CMD until
# it exits 0, starting it over after each attempt the client reports hung; ends
# it when the client is done. Succeeds when CMD or the client did.
serve_until_client_done() {
	local name=$1 end=$((SECONDS + $2)) done=$RNIC_RUN_DIR/out$((3 - SERVER_GUEST))/$1.done pid rc hung
	shift 2
	while [ $SECONDS -lt $end ]; do
		hung=$(hung_reports "$name")
		echo >>"$RNIC_OUT/$name.serving"
		"$@" &
		pid=$!
		while kill -0 $pid 2>/dev/null && [ $SECONDS -lt $end ] && [ ! -e "$done" ] &&
			[ "$(hung_reports "$name")" = "$hung" ]; do
			sleep 1
		done
		kill $pid 2>/dev/null
		wait $pid
		rc=$?
		[ $rc = 0 ] && return 0
		[ -e "$done" ] && break
		say "$name server ended ($rc); serving again"
		sleep 1
	done
	[ "$(cat "$done" 2>/dev/null)" = ok ]
}

# retry SECONDS CMD...: the client side retries while the server is not yet
# listening; under TCG on a loaded host the server can be tens of seconds late.
retry() {
	local end=$((SECONDS + $1))
	shift
	while :; do
		"$@" && return 0
		[ $SECONDS -lt $end ] || return 1
		sleep 2
	done
}

# Use the staged rdma-core (56.1, with our provider) rather than the host's.
use_staged_rdma_core() {
	export LD_LIBRARY_PATH=$RNIC_STAGE/lib PATH=$RNIC_STAGE/bin:$PATH
}

# rdma_up: the RDMA device of this guest as DEV: the rnic driver's own
# ib_device with RNIC_NIC=rnic, else a software stack (RNIC_SOFT) on NETDEV.
rdma_up() {
	local i
	if [ "$RNIC_NIC" = rnic ]; then
		modprobe ib_uverbs
		modprobe rdma_ucm
		for i in $(seq 1 50); do
			DEV=$(ls /sys/class/infiniband 2>/dev/null | head -1)
			[ -n "$DEV" ] && return 0
			sleep 0.1
		done
		fail "the rnic driver registered no RDMA device"
	fi
	soft_rdma_up "${RNIC_SOFT:-siw}" "$RNIC_SIW"
}

# nvmet_rdma_target NQN PORT: a 1 GiB null_blk namespace (/dev/nullb0) in
# subsystem NQN, open to any host, served over RDMA on $RNIC_IP:PORT through
# the kernel's configfs (nvmet-rdma).
nvmet_rdma_target() {
	local s=/sys/kernel/config/nvmet/subsystems/$1 p=/sys/kernel/config/nvmet/ports/1
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 || fail "null_blk"
	modprobe nvmet-rdma || fail "nvmet-rdma"
	mount -t configfs none /sys/kernel/config 2>/dev/null
	mkdir "$s" || fail "nvmet subsystem"
	echo 1 >"$s/attr_allow_any_host"
	mkdir "$s/namespaces/1"
	echo /dev/nullb0 >"$s/namespaces/1/device_path"
	echo 1 >"$s/namespaces/1/enable" || fail "namespace enable"
	mkdir "$p"
	echo rdma >"$p/addr_trtype"
	echo ipv4 >"$p/addr_adrfam"
	echo "$RNIC_IP" >"$p/addr_traddr"
	echo "$2" >"$p/addr_trsvcid"
	ln -s "$s" "$p/subsystems/$1" || fail "nvmet port (rdma listen on $RNIC_IP:$2)"
}

# kernel_clean: no oops, BUG or WARNING in the kernel log (printed if any).
# The whole log is kept in the run directory (out<N>/dmesg.txt). The kernel
# command line is not an event: it holds "oops=panic", which a
# case-insensitive check would take for an oops in every guest.
# nvme_rw_verify NQN MIB NAME: after `nvme connect` to NQN, waits for its
# namespace, writes MIB MiB of random data with O_DIRECT, reads it back and
# compares SHA-256, disconnects, and reports RESULT NAME with the write rate.
nvme_rw_verify() {
	local nqn=$1 mib=$2 name=$3 dev want got t0 t1
	for _ in $(seq 1 100); do
		dev=$(ls /dev/nvme*n1 2>/dev/null | head -1)
		[ -n "$dev" ] && break
		sleep 0.2
	done
	[ -n "$dev" ] || fail "$name: no namespace appeared"
	head -c $((mib << 20)) /dev/urandom >/tmp/data || fail "random data"
	want=$(sha256sum </tmp/data | cut -d' ' -f1)
	t0=$(date +%s.%N)
	dd if=/tmp/data of="$dev" bs=1M oflag=direct status=none || fail "write $mib MiB"
	t1=$(date +%s.%N)
	got=$(dd if="$dev" bs=1M count="$mib" iflag=direct status=none | sha256sum | cut -d' ' -f1) ||
		fail "read back"
	[ "$got" = "$want" ] || fail "read back: sha256 $got != $want"
	nvme disconnect -n "$nqn" >/dev/null || fail "nvme disconnect"
	result "$name" write_mib="$mib" sha256=match \
		write_mbps="$(echo "$mib $t0 $t1" | awk '{printf "%.1f", $1*8*1.048576/($3-$2)}')"
}

kernel_clean() {
	local bad
	dmesg >"$RNIC_OUT/dmesg.txt"
	bad=$(grep -v "Kernel command line:\|\] Command line:" "$RNIC_OUT/dmesg.txt" |
		grep -E "Oops|BUG:|WARNING:|Call Trace" -A12)
	[ -z "$bad" ] && return 0
	echo "$bad"
	return 1
}
