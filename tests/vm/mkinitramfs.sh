#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the lab's tiny initramfs for one extracted Debian kernel: a static busybox,
# the modules needed to mount the host's root over 9p (decompressed: busybox insmod
# cannot read .ko.xz), and guest/initramfs-init as /init.
# usage: mkinitramfs.sh KERNEL_ROOT KVER OUT.gz
set -euo pipefail
kroot=$1 kver=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
busybox=/bin/busybox
file -L "$busybox" | grep -q 'statically linked' ||
	{ echo "mkinitramfs: $busybox is not static (install busybox-static)" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,newroot,mods}
cp "$busybox" "$stage/bin/busybox"
for l in sh mount umount insmod switch_root mkdir cat echo sleep; do
	ln -s busybox "$stage/bin/$l"
done
cp "$here/guest/initramfs-init" "$stage/init"
chmod 755 "$stage/init"

: >"$stage/mods/order"
for m in 9pnet_virtio 9p overlay virtio_net; do
	modprobe -d "$kroot" -S "$kver" -C /dev/null --show-depends "$m" | awk '$1=="insmod"{print $2}'
done | awk '!seen[$0]++' | while read -r ko; do
	name=$(basename "$ko")
	case "$name" in
	*.ko.xz) xz -dc "$ko" >"$stage/mods/${name%.xz}"; name=${name%.xz} ;;
	*.ko.zst) zstd -qdc "$ko" >"$stage/mods/${name%.zst}"; name=${name%.zst} ;;
	*) cp "$ko" "$stage/mods/$name" ;;
	esac
	echo "$name" >>"$stage/mods/order"
done
[ -s "$stage/mods/order" ] || { echo "mkinitramfs: no modules resolved in $kroot" >&2; exit 1; }
(cd "$stage" && find . | "$busybox" cpio -o -H newc 2>/dev/null | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
