#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Kernel storage ULPs over RDMA between two lab guests, every check in one boot
# (TAP subtests through lab.py --tap, as rnic-user-pair.sh). Guest 1 serves,
# guest 2 is the client; with RNIC_ULP_BOTH_WAYS=1 the checks then run again
# with guest 2 serving (see the end). RNIC_ULPS picks the checks, run in order:
#   nfs3 nfs42  NFS over RDMA (rpcrdma): guest 1's nfsd exports a tmpfs and
#               listens on rdma 20049; guest 2 mounts vers=3 / vers=4.2 with
#               proto=rdma,port=20049 (mountstats must say xprt: rdma), writes
#               RNIC_ULP_MIB MiB of random data, runs the metadata workload
#               (ulp-tree.py: RNIC_ULP_TREE_DIRS x 100 files, default 100, in
#               nested directories, renamed, stat),
#               the server compares the file's SHA-256 and the tree's listing
#               with the client's; the client remounts, reads both back and
#               compares, deletes the tree, the server sees it empty
#   iser        iSCSI over RDMA: guest 1 a LIO target configured through
#               configfs (fileio LUN on a tmpfs file, portal with iser=1,
#               ib_isert), guest 2 open-iscsi with iface iser (ib_iser): log
#               in, fio --verify=crc32c on the disk, RNIC_ULP_MIB MiB of random
#               data written with O_DIRECT and compared by SHA-256 read back
#               and in the server's backing file, log out
# The two guests meet through files on their output shares (STEP files below).
# Guest tools (nfs-kernel-server, open-iscsi, fio) come from the host's root
# (scripts/setup/host-packages.sh).
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail
net_up
rdma_up
wait_peer
pin_peer_neigh
TAG=$RNIC_NIC
[ "$TAG" = rnic ] || TAG=${RNIC_SOFT:-siw}
MIB=${RNIC_ULP_MIB:-32}
# 100 files per directory of the tree's first level: every file costs several
# synchronous RPCs (20-40 ms each under TCG on a loaded host).
TREE_DIRS=${RNIC_ULP_TREE_DIRS:-1}
TREE="$RNIC_LAB_DIR/guest/ulp-tree.py"
EXPORT=/run/export
# Direction 2 (guest 2 serving) listens one port up: each check's rule in
# the captures sees only its own connections.
NFS_PORT=20049
ISER_PORT=3260
IQN=iqn.2026-12.invalid.rnic:lab-iser
PEER_ID=$((3 - RNIC_GUEST_ID))

# post NAME.STEP [TEXT]: tell the peer a step is done (written then renamed, so
# the peer never reads half of it).
post() {
	echo "${2:-}" >"$RNIC_OUT/.$1" && mv "$RNIC_OUT/.$1" "$RNIC_OUT/$1"
}

# await NAME.STEP SECONDS: until the peer posted it (its text in STEP_TEXT);
# fails early when the peer gave up on the check (posted NAME.end).
await() {
	local f="$RNIC_RUN_DIR/out$PEER_ID/$1" end=$((SECONDS + $2)) check=${1%%.*}
	until [ -e "$f" ]; do
		# NAME.end may be what we await, and a step is posted before the
		# check's end: look at the step again once the end is there.
		if [ -e "$RNIC_RUN_DIR/out$PEER_ID/$check.end" ]; then
			[ -e "$f" ] && break
			say "peer ended $check before $1"
			return 1
		fi
		[ $SECONDS -lt $end ] || { say "no $1 from the peer in $2 s"; return 1; }
		sleep 1
	done
	STEP_TEXT=$(cat "$f")
}

mbps() { # mbps MIB T0 T1
	echo "$1 $2 $3" | awk '{printf "%.1f", $1*8*1.048576/($3-$2)}'
}

# --- NFS over RDMA ---------------------------------------------------------

# nfs_server_up: nfsd with one tmpfs export (fsid: tmpfs has no UUID; 0: it
# is NFSv4's root too, whose pseudo filesystem cannot reach through the
# guest's 9p root to it: mount.nfs4 got ENOENT for its full path), the
# RDMA listener next to nfsd's TCP one, rpcbind and mountd for NFSv3's MOUNT
# (over TCP: only NFS itself runs over RDMA). A 10 s grace period: nfsd
# refuses NFSv4 OPENs for that long after it starts. Once per boot.
nfs_server_up() {
	[ -e /run/nfs-up ] && return 0
	modprobe nfsd || fail "modprobe nfsd"
	modprobe rpcrdma || fail "modprobe rpcrdma (svcrdma)"
	mount -t nfsd nfsd /proc/fs/nfsd || fail "mount nfsd"
	mount -t tmpfs tmpfs /var/lib/nfs || fail "tmpfs on /var/lib/nfs"
	mkdir -p /var/lib/nfs/v4recovery /var/lib/nfs/sm /run/rpcbind "$EXPORT"
	mount -t tmpfs -o size=$((3 * MIB + 256))m tmpfs "$EXPORT" || fail "tmpfs export"
	echo "$EXPORT 10.77.0.0/24(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" >/etc/exports
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	rpcbind || fail "rpcbind"
	exportfs -ra || fail "exportfs"
	rpc.mountd --no-udp || fail "rpc.mountd"
	rpc.nfsd --no-udp 8 || fail "rpc.nfsd"
	echo "rdma $NFS_PORT" >/proc/fs/nfsd/portlist || fail "rdma $NFS_PORT in /proc/fs/nfsd/portlist"
	say "nfsd: $(tr '\n' ' ' </proc/fs/nfsd/portlist); versions $(cat /proc/fs/nfsd/versions)"
	touch /run/nfs-up
}

# serve_nfs NAME: check the client's writes and deletions from the server's side.
serve_nfs() {
	local n=$1 d=$EXPORT/$1 want got
	nfs_server_up
	mkdir -p "$d" || fail "mkdir $d"
	post "$n.ready"
	await "$n.written" 600 || fail "client did not write"
	want=$STEP_TEXT
	got="data=$(sha256sum <"$d/data" | cut -d' ' -f1) tree=$(python3 "$TREE" list "$d/tree")" ||
		fail "server's view of $d"
	say "server's view: $got"
	if [ "$got" != "$want" ]; then
		post "$n.server" "mismatch: $got"
		fail "server's view differs from the client's: client $want, server $got"
	fi
	post "$n.server" ok
	await "$n.deleted" 600 || fail "client did not delete"
	[ -z "$(ls -A "$d/tree")" ] || { post "$n.server-empty" "not empty"; fail "$d/tree not empty on the server"; }
	rm -f "$d/data"
	post "$n.server-empty" ok
	await "$n.end" 300 || fail "client did not finish"
	result "$n-server-$TAG" data=match tree=match deleted=yes
}

# nfs_mount NAME VERS: mounts the check's directory over RDMA at /run/mnt-NAME
# and proves the transport in /proc/self/mountstats.
nfs_mount() {
	local m=/run/mnt-$1 xprt
	mkdir -p "$m"
	local o="vers=$2,proto=rdma,port=$NFS_PORT"
	[ "$2" = 3 ] && o+=,nolock # no lockd/statd in the lab
	local path=$EXPORT/$1
	[ "$2" = 3 ] || path=/$1 # NFSv4: below the export with fsid=0
	mount -t nfs -o "$o" "$RNIC_PEER:$path" "$m" || fail "mount vers=$2 proto=rdma $RNIC_PEER:$path"
	xprt=$(awk -v m="$m" '$1 == "device" { cur = ($5 == m) } cur && $1 == "xprt:" { print $2; exit }' \
		/proc/self/mountstats)
	[ "$xprt" = rdma ] || fail "$m: mountstats xprt is '$xprt', not rdma"
	MNT=$m
}

client_nfs() {
	local n=$1 v=$2 want tree t0 t1 t2 t3 t4 got
	modprobe rpcrdma || fail "modprobe rpcrdma"
	await "$n.ready" 300 || fail "server not ready"
	nfs_mount "$n" "$v"
	say "mounted $MNT: $(grep " $MNT " /proc/mounts)"
	[ -e /tmp/ulp-data ] || head -c $((MIB << 20)) /dev/urandom >/tmp/ulp-data || fail "random data"
	want=$(sha256sum </tmp/ulp-data | cut -d' ' -f1)
	t0=$(date +%s.%N)
	dd if=/tmp/ulp-data of="$MNT/data" bs=1M conv=fsync status=none || fail "write $MIB MiB"
	t1=$(date +%s.%N)
	python3 "$TREE" make "$MNT/tree" "$TREE_DIRS" || fail "metadata workload"
	t2=$(date +%s.%N)
	tree=$(python3 "$TREE" list "$MNT/tree") || fail "listing"
	post "$n.written" "data=$want tree=$tree"
	await "$n.server" 600 || fail "no verdict from the server"
	[ "$STEP_TEXT" = ok ] || fail "server's view: $STEP_TEXT"
	# Read back through a new mount: nothing comes from this client's cache.
	umount "$MNT" || fail "umount $MNT"
	nfs_mount "$n" "$v"
	t3=$(date +%s.%N)
	got=$(sha256sum <"$MNT/data" | cut -d' ' -f1) || fail "read back"
	t4=$(date +%s.%N)
	[ "$got" = "$want" ] || fail "read back: sha256 $got != $want"
	got=$(python3 "$TREE" list "$MNT/tree") || fail "listing after remount"
	[ "$got" = "$tree" ] || fail "listing after remount: $got != $tree"
	python3 "$TREE" empty "$MNT/tree" || fail "delete the tree"
	[ -z "$(ls -A "$MNT/tree")" ] || fail "tree not empty after deleting"
	post "$n.deleted"
	await "$n.server-empty" 300 || fail "no verdict on the deletion"
	[ "$STEP_TEXT" = ok ] || fail "server after deletion: $STEP_TEXT"
	umount "$MNT" || fail "final umount $MNT"
	result "$n-$TAG" vers="$v" xprt=rdma mib="$MIB" write_mbps="$(mbps "$MIB" "$t0" "$t1")" \
		read_mbps="$(mbps "$MIB" "$t3" "$t4")" tree_s="$(echo "$t1 $t2" | awk '{printf "%.1f", $2-$1}')" \
		"$tree" sha256=match
}

# --- iSER ------------------------------------------------------------------

TGT=/sys/kernel/config/target
TPG=$TGT/iscsi/$IQN/tpgt_1
LUN_FILE=/run/iser/lun0.img

serve_iser() { # serve_iser NAME
	local n=$1 np=$TPG/np/$RNIC_IP:$ISER_PORT got
	modprobe target_core_mod || fail "target_core_mod"
	modprobe target_core_file || fail "target_core_file"
	modprobe iscsi_target_mod || fail "iscsi_target_mod"
	modprobe ib_isert || fail "ib_isert"
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || fail "configfs"
	mkdir -p /run/iser
	mount -t tmpfs -o size=$((MIB + 16))m tmpfs /run/iser || fail "tmpfs for the LUN"
	truncate -s "${MIB}M" $LUN_FILE || fail "LUN file"
	mkdir -p $TGT/core/fileio_0/lun0 || fail "fileio backstore"
	echo "fd_dev_name=$LUN_FILE,fd_dev_size=$((MIB << 20))" >$TGT/core/fileio_0/lun0/control
	echo 1 >$TGT/core/fileio_0/lun0/enable || fail "enable the fileio backstore"
	mkdir -p "$TPG/lun/lun_0" || fail "iscsi target $IQN"
	ln -s $TGT/core/fileio_0/lun0 "$TPG/lun/lun_0/lun0" || fail "LUN 0"
	echo 0 >"$TPG/attrib/authentication"
	echo 1 >"$TPG/attrib/generate_node_acls"
	echo 1 >"$TPG/attrib/cache_dynamic_acls"
	echo 0 >"$TPG/attrib/demo_mode_write_protect"
	# LIO opens a TCP listener on every portal before iSER can be switched
	# on, and on an iWARP device without port mapping (iwpmd) that TCP
	# listener holds the port the iSER listener needs (isert: rdma_listen()
	# failed: -98). The portal is made from a network namespace of its own
	# that holds the same address on its loopback, so LIO's TCP listener
	# lives there; ib_isert's listener is made in the initial namespace.
	unshare -n sh -c "ip link set lo up && ip addr add $RNIC_IP/32 dev lo && mkdir '$np'" ||
		fail "portal $RNIC_IP:$ISER_PORT (TCP listener in its own network namespace)"
	echo 1 >"$np/iser" || fail "iser=1 on the portal (ib_isert)"
	echo 1 >"$TPG/enable" || fail "enable the target portal group"
	say "iSER target $IQN on $RNIC_IP:$ISER_PORT, iser=$(cat "$np/iser"), fileio $LUN_FILE"
	post "$n.ready"
	await "$n.written" 600 || fail "client did not write"
	got=$(head -c $((MIB << 20)) $LUN_FILE | sha256sum | cut -d' ' -f1)
	say "server's backing file: sha256 $got"
	if [ "data=$got" != "$STEP_TEXT" ]; then
		post "$n.server" "mismatch: data=$got"
		fail "backing file differs: client $STEP_TEXT, server data=$got"
	fi
	post "$n.server" ok
	await "$n.end" 300 || fail "client did not finish"
	# Take the target down again: no session may hold it.
	echo 0 >"$TPG/enable" || fail "disable the target portal group"
	{ rmdir "$np" && rm "$TPG/lun/lun_0/lun0" && rmdir "$TPG/lun/lun_0" && rmdir "$TPG" &&
		rmdir "$TGT/iscsi/$IQN" && rmdir $TGT/core/fileio_0/lun0; } || fail "target teardown"
	result "iser-server-$TAG" data=match teardown=yes
}

# The disk of the one iSCSI session (no udev in the lab: sysfs).
iser_disk() {
	local b
	for b in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
		[ -e "$b" ] && { basename "$b"; return 0; }
	done
	return 1
}

client_iser() { # client_iser NAME
	local n=$1 portal=$RNIC_PEER:$ISER_PORT dev sess want got t0 t1 t2 i out
	modprobe ib_iser || fail "ib_iser"
	modprobe sd_mod
	mkdir -p /run/lock/iscsi
	pgrep -x iscsid >/dev/null || iscsid || fail "iscsid"
	await "$n.ready" 300 || fail "target not ready"
	iscsiadm -m node -o new -T $IQN -p "$portal" -I iser >/dev/null || fail "iscsiadm node new"
	iscsiadm -m node -T $IQN -p "$portal" -I iser --login || fail "iSER login to $portal"
	sess=$(iscsiadm -m session) || fail "no session"
	echo "$sess"
	echo "$sess" | grep -q "^iser: .*$portal.* $IQN" || fail "the session is not over iser: $sess"
	for i in $(seq 1 100); do
		dev=$(iser_disk) && [ -b "/dev/$dev" ] && break
		sleep 0.2
	done
	[ -b "/dev/$dev" ] || fail "no disk appeared for the iSER session"
	say "iSER disk /dev/$dev: $(cat "/sys/block/$dev/size") sectors"
	t0=$(date +%s.%N)
	out=$(fio --name=iser-verify --filename="/dev/$dev" --direct=1 --ioengine=libaio --iodepth=8 \
		--rw=randwrite --bsrange=4k-256k --size=$((MIB / 2))M --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --randrepeat=1 2>&1)
	i=$?
	echo "$out" | grep -E "err=|WRITE:|READ:|verify"
	[ $i = 0 ] || { echo "$out"; fail "fio --verify=crc32c (exit $i)"; }
	echo "$out" | grep -q "err= 0" || fail "fio reported an error"
	t1=$(date +%s.%N)
	[ -e /tmp/ulp-data ] || head -c $((MIB << 20)) /dev/urandom >/tmp/ulp-data || fail "random data"
	want=$(sha256sum </tmp/ulp-data | cut -d' ' -f1)
	dd if=/tmp/ulp-data of="/dev/$dev" bs=1M oflag=direct status=none || fail "write $MIB MiB"
	t2=$(date +%s.%N)
	got=$(dd if="/dev/$dev" bs=1M count="$MIB" iflag=direct status=none | sha256sum | cut -d' ' -f1) ||
		fail "read back"
	t3=$(date +%s.%N)
	[ "$got" = "$want" ] || fail "read back: sha256 $got != $want"
	post "$n.written" "data=$want"
	await "$n.server" 300 || fail "no verdict from the target"
	[ "$STEP_TEXT" = ok ] || fail "target's backing file: $STEP_TEXT"
	iscsiadm -m node -T $IQN -p "$portal" -I iser --logout || fail "iSER logout"
	iscsiadm -m session >/dev/null 2>&1 && fail "a session is left after logout"
	iscsiadm -m node -o delete -T $IQN -p "$portal" -I iser || fail "iscsiadm node delete"
	iscsiadm -k 0 2>/dev/null
	result "iser-$TAG" mib="$MIB" fio_verify=crc32c fio_s="$(echo "$t0 $t1" | awk '{printf "%.1f", $2-$1}')" \
		write_mbps="$(mbps "$MIB" "$t1" "$t2")" read_mbps="$(mbps "$MIB" "$t2" "$t3")" sha256=match
}

# --- the checks --------------------------------------------------------------

# check_wire NAME: its server port and the RDMAP opcodes it must put on the
# wire (lab.py's per-check capture rule): Sends for the RPCs / iSCSI PDUs,
# RDMA Read (request, response) for data the server pulls, RDMA Write for
# data it pushes.
check_wire() {
	case "$1" in
	nfs3 | nfs42) echo "ports=$NFS_PORT opcodes=0,1,2,3" ;;
	iser) echo "ports=$ISER_PORT opcodes=0,1,2,3" ;;
	esac
}

run_check() { # run_check NAME CHECK
	# The peer waits for this whatever happens to the check here.
	# shellcheck disable=SC2064
	trap "post $1.end" EXIT
	if [ "$RNIC_ROLE" = server ]; then
		case "$2" in
		nfs3 | nfs42) serve_nfs "$1" ;;
		iser) serve_iser "$1" ;;
		*) fail "unknown check $2" ;;
		esac
	else
		case "$2" in
		nfs3) client_nfs "$1" 3 ;;
		nfs42) client_nfs "$1" 4.2 ;;
		iser) client_iser "$1" ;;
		*) fail "unknown check $2" ;;
		esac
	fi
}

# Each check runs in a subshell (fail ends only that check); both guests
# report each one (RNIC-CHECK), then whether their kernel log stayed clean.
# RNIC_ULP_BOTH_WAYS=1: guest 1 serves the checks (direction 1), then guest 2
# (direction 2, on ports one up), each check named CHECK-SERVER-CLIENT by the
# guests' stacks (nfs3-rnic-siw, ..., then nfs3-siw-rnic, ...).
FAILED=0
read -r -a ulps <<<"${RNIC_ULPS:-nfs3 nfs42 iser}"
directions=1
[ "${RNIC_ULP_BOTH_WAYS:-0}" = 1 ] && directions="1 2"
check_name() { # check_name DIRECTION CHECK
	if [ "$directions" = 1 ]; then echo "$2"; else echo "$2-$(stack_of "$1")-$(stack_of $((3 - $1)))"; fi
}
plan=()
for d in $directions; do
	for c in "${ulps[@]}"; do
		plan+=("$(check_name "$d" "$c")")
	done
done
echo "RNIC-PLAN ${plan[*]} kernel-log"
for d in $directions; do
	RNIC_ROLE=client
	[ "$RNIC_GUEST_ID" = "$d" ] && RNIC_ROLE=server
	NFS_PORT=$((20049 + d - 1)) ISER_PORT=$((3260 + d - 1))
	for c in "${ulps[@]}"; do
		name=$(check_name "$d" "$c")
		say "=== $name: guest$d serves ==="
		t0=$SECONDS
		(run_check "$name" "$c")
		rc=$?
		say "$name took $((SECONDS - t0)) s"
		if [ $rc = 0 ]; then
			echo "RNIC-CHECK ok $name $(check_wire "$c")"
		else
			echo "RNIC-CHECK fail $name $(check_wire "$c")"
			FAILED=$((FAILED + 1))
		fi
	done
done
if kernel_clean; then
	echo "RNIC-CHECK ok kernel-log"
else
	echo "RNIC-CHECK fail kernel-log"
	FAILED=$((FAILED + 1))
fi
[ $FAILED = 0 ] || fail "$FAILED of $((${#plan[@]} + 1)) checks failed"
exit 0
