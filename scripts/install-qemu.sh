#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the cache's QEMU with rnic (qemu-system-x86_64, qemu-img) under a prefix.
#   scripts/install-qemu.sh [--prefix DIR]   default DIR: $RNIC_CACHE/install
# The build is relocatable (configured with QEMU's default prefix /usr/local), so
# an installed binary looks for firmware in DIR/share/qemu; that directory gets
# symlinks to Debian's firmware packages (qemu-system-data, seabios, ipxe-qemu),
# so no -L is needed. Those packages must stay installed.
set -euo pipefail
. "$(dirname "$0")/setup/common.sh"

BUILD=$RNIC_CACHE/build/qemu
# First one wins for a name found in several (bios-microvm.bin).
FIRMWARE_DIRS="/usr/share/qemu /usr/share/seabios /usr/lib/ipxe/qemu"
prefix=$RNIC_CACHE/install

while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; prefix=$2; shift ;;
	--prefix=*) prefix=${1#--prefix=} ;;
	-h | --help) sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (usage: ./rnic install [--prefix DIR])" ;;
	esac
	shift
done
case "$prefix" in /*) ;; *) prefix=$PWD/$prefix ;; esac

for f in qemu-system-x86_64 qemu-img; do
	[ -x "$BUILD/$f" ] || die "no $BUILD/$f: run ./rnic setup first"
done
"$BUILD/qemu-system-x86_64" -device help | grep -q '"rnic"' ||
	die "$BUILD/qemu-system-x86_64 has no rnic device: run ./rnic setup"
for f in /usr/share/seabios/bios-256k.bin /usr/lib/ipxe/qemu/efi-virtio.rom /usr/share/qemu/linuxboot_dma.bin; do
	[ -e "$f" ] || die "no $f: apt-get install seabios ipxe-qemu qemu-system-data"
done

mkdir -p "$prefix/bin" "$prefix/share/qemu"
for f in qemu-system-x86_64 qemu-img; do
	install -m 755 "$BUILD/$f" "$prefix/bin/$f.new"
	mv -f "$prefix/bin/$f.new" "$prefix/bin/$f"
done
n=0
for d in $FIRMWARE_DIRS; do
	for f in "$d"/*; do
		[ -e "$f" ] || continue
		[ -e "$prefix/share/qemu/${f##*/}" ] && continue
		ln -s "$f" "$prefix/share/qemu/${f##*/}"
		n=$((n + 1))
	done
done
ok "installed qemu-system-x86_64 and qemu-img in $prefix/bin ($n firmware links in $prefix/share/qemu)"
cat <<MSG
Run a guest with rnic (its disk, and a second guest as its peer; see docs/using-rnic.md):
  $prefix/bin/qemu-img create -f qcow2 -b debian.qcow2 -F qcow2 vm1.qcow2
  $prefix/bin/qemu-system-x86_64 -M q35 -m 2G -drive file=vm1.qcow2,if=virtio \\
      -netdev stream,id=n0,server=on,addr.type=unix,addr.path=/tmp/rnic.sock \\
      -device rnic,netdev=n0,mac=52:54:00:00:00:01
Add $prefix/bin to PATH to call it qemu-system-x86_64.
MSG
