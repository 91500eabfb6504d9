#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# PID 1 of a lab guest, on the host's root (read-only 9p). Sets up the mounts the
# tests need, a modprobe that finds the extracted guest kernel's modules, the
# network interface, then runs the test script and reports its exit status to the
# host through isa-debug-exit (QEMU exits with (rc << 1) | 1).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp
exec </dev/null >/dev/console 2>&1
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
ln -sf /proc/self/fd /dev/fd 2>/dev/null

for a in $(cat /proc/cmdline); do
	case "$a" in
	rnic.dir=*) RNIC_RUN_DIR=${a#rnic.dir=} ;;
	rnic.id=*) RNIC_GUEST_ID=${a#rnic.id=} ;;
	esac
done
. "$RNIC_RUN_DIR/guest$RNIC_GUEST_ID.env"
export RNIC_RUN_DIR RNIC_GUEST_ID

hostname "guest$RNIC_GUEST_ID"
echo "$RNIC_KROOT $RNIC_KVER" >/run/rnic-kernel
echo "$RNIC_LAB_DIR/guest/modprobe-wrapper" >/proc/sys/kernel/modprobe
mkdir -p /run/out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 rnicout /run/out ||
	echo "guest-init: no output share"
# The host path of the run directory may sit under the overlaid /tmp, which
# never shows files the peer creates later: use the run share.
mkdir -p /run/lab
if mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000 rnicrun /run/lab; then
	RNIC_RUN_DIR=/run/lab
else
	echo "guest-init: no run share"
fi
ip link set lo up

finish() {
	rc=$1
	echo "RNIC-LAB-EXIT rc=$rc"
	sync
	[ "$rc" -gt 127 ] && rc=127
	printf "\\$(printf %03o "$rc")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	echo o >/proc/sysrq-trigger
	sleep 10
}

echo "RNIC-LAB-START guest$RNIC_GUEST_ID $(uname -r) up at $(cut -d' ' -f1 /proc/uptime)s"
cd /tmp
/bin/bash "$RNIC_SCRIPT"
finish $?
