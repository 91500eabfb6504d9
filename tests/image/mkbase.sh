#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The base of a standalone guest image (called by build-image.sh): Debian
# RELEASE from the archive with mmdebstrap into DIR (a directory tree), with
# the release's kernel, rdma-core userland and the packages in packages.txt,
# the serial console logging in root, and the test runner unit
# (guest/rnic-image-test*). No Recommends, no docs, no man pages.
#
#   mkbase.sh RELEASE MIRROR DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite=$1 mirror=$2 root=$3
packages=$(grep -v '^#' "$here/packages.txt" | grep . | paste -sd,)
hooks=(
	# A small initramfs: only what finds an ext4 root on virtio-blk
	# (MODULES=most would take every storage and network driver).
	--essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d"'
	--essential-hook='echo MODULES=list >"$1/etc/initramfs-tools/conf.d/rnic-image.conf"'
	--essential-hook='printf "virtio_pci\nvirtio_blk\next4\n" >"$1/usr/share/initramfs-tools/modules.d/rnic-image"'
	--customize-hook='echo rnic-guest >"$1/etc/hostname"'
	--customize-hook=': >"$1/etc/resolv.conf"'
	--customize-hook='echo "LABEL=rnicroot / ext4 rw,relatime 0 1" >"$1/etc/fstab"'
	--customize-hook='chroot "$1" passwd -d root >/dev/null'
	# Root logs in on the serial console without a password (a test image).
	--customize-hook='mkdir -p "$1/etc/systemd/system/serial-getty@ttyS0.service.d" && printf "[Service]\nExecStart=\nExecStart=-/sbin/agetty --autologin root --keep-baud 115200,38400,9600 %%I \$TERM\n" >"$1/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf"'
	--customize-hook="copy-in $here/guest/rnic-image-test /usr/local/sbin"
	--customize-hook="copy-in $here/guest/rnic-image-test.service /etc/systemd/system"
	--customize-hook='chroot "$1" systemctl enable rnic-image-test.service'
)
exec mmdebstrap --mode=root --variant=minbase --format=directory \
	--aptopt='Acquire::Languages "none"' \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
	--include="$packages" "${hooks[@]}" \
	"$suite" "$root" \
	"deb $mirror $suite main" "deb $mirror $suite-updates main" \
	"deb ${mirror%/debian}/debian-security $suite-security main"
