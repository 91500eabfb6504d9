#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One guest, a device configured at the edge of what the driver supports
# (RNIC_EDGE, with the matching -global rnic.* property from the meson test):
#   caps: max-eq=1, fewer EQs than the driver needs: it must refuse the
#         device with a message, create no interface, and unload cleanly;
#   mtu:  max-mtu=1500: the port's MTU range follows the device, a jumbo
#         MTU is refused, smaller ones work on the running port.
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail
KO=${RNIC_GUEST_KO:-$RNIC_CACHE/build/guest-driver-6.12/rnic.ko}

dmesg -C
case "$RNIC_EDGE" in
caps)
	modprobe ib_uverbs || fail "modprobe ib_uverbs"
	insmod "$KO" || fail "insmod"
	! lab_netdev >/dev/null || fail "an interface appeared on an unusable device"
	dmesg | grep 'unusable capabilities' || fail "no refusal in the kernel log"
	rmmod rnic || fail "rmmod"
	;;
mtu)
	net_up
	max=$(ip -d link show "$NETDEV" | sed -n 's/.*maxmtu \([0-9]*\).*/\1/p')
	[ "$max" = 1500 ] || fail "maxmtu $max on a max-mtu=1500 device"
	! ip link set "$NETDEV" mtu 9000 2>/dev/null || fail "MTU 9000 accepted"
	ip link set "$NETDEV" mtu 1400 || fail "MTU 1400 on the running port"
	ip link set "$NETDEV" mtu 1500 || fail "MTU 1500 on the running port"
	rmmod rnic || fail "rmmod"
	;;
*) fail "RNIC_EDGE must be caps or mtu" ;;
esac
dmesg | grep -E 'rnic|eth0'
bad=$(dmesg | grep -v 'module verification failed' | grep -E 'BUG|WARNING|Oops|leak')
[ -z "$bad" ] || { echo "$bad"; fail "kernel log"; }
! grep -q rnic /proc/interrupts || fail "rnic interrupts left after rmmod"
result "rnic-edge-$RNIC_EDGE" ok=1
exit 0
