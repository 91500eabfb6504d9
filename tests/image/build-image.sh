#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds a standalone Debian guest disk image: the base from Debian's archive
# (mkbase.sh: mmdebstrap, the release's own kernel and rdma-core userland),
# then the rnic guest kit installed with apt as a user would (DKMS builds the
# module for the image's kernel), then an ext4 disk made straight from the
# tree (mke2fs -d: no loop mount). No 9p host root, no staged libraries.
#
#   build-image.sh bookworm|trixie [KIT_DIR]
#
# KIT_DIR is `./rnic guest-kit DIR`'s output: rnic-dkms_*.deb (both releases)
# and the release's provider package (*~deb12_*.deb, *~deb13_*.deb). Both
# layers are cached by content under $RNIC_CACHE/images/: base-<release>-<key>/root
# (key: release, mirror, mkbase.sh, packages.txt, the guest test runner) and
# <release>-<key>/ (key: the base's, this script, the content of the kit's
# .debs) with disk.raw (ext4 "rnicroot", root=/dev/vda, no partition table), vmlinuz,
# initrd.img, kver, packages.txt (dpkg-query of the image). A new kit rebuilds
# only the second layer. Prints the image directory. A first build needs root
# and Debian's archive.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite=${1:?usage: build-image.sh bookworm|trixie [KIT_DIR]}
kit=${2:-}
cache=${RNIC_CACHE:-$HOME/.cache/rnic}
mirror=${RNIC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
case "$suite" in bookworm | trixie) ;; *) echo "build-image: unknown release $suite" >&2; exit 2 ;; esac
log() { echo "build-image: $*" >&2; }

kit_debs=()
if [ -n "$kit" ]; then
	shopt -s nullglob
	case "$suite" in bookworm) tag=deb12 ;; trixie) tag=deb13 ;; esac
	kit_debs=("$kit"/rnic-dkms_*.deb "$kit"/*~${tag}_*.deb)
	shopt -u nullglob
	[ ${#kit_debs[@]} -ge 2 ] || { log "no rnic-dkms and ~$tag packages in $kit"; exit 2; }
fi

# A package's content (maintainer scripts, file list, file data), not its
# .deb bytes: dpkg-deb stamps build times, so a rebuilt kit differs in bytes
# only and must not rebuild the image.
deb_content() {
	dpkg-deb --ctrl-tarfile "$1" | tar -xO
	dpkg-deb --fsys-tarfile "$1" | tar -t
	dpkg-deb --fsys-tarfile "$1" | tar -xO
}

base_key=$( {
	echo "$suite $mirror"
	cat "$here/mkbase.sh" "$here/packages.txt" "$here/guest/rnic-image-test" \
		"$here/guest/rnic-image-test.service"
} | sha256sum | cut -c1-16)
key=$( {
	echo "$base_key"
	cat "$here/build-image.sh" "$here/guest/rnic-image-test-flag.conf"
	for d in "${kit_debs[@]}"; do basename "$d"; deb_content "$d" | sha256sum; done
} | sha256sum | cut -c1-16)
base=$cache/images/base-$suite-$base_key
out=$cache/images/$suite-$key
if [ -e "$out/.ready" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$cache/images"
exec 9>"$cache/images/.build-$suite.lock"
flock 9
[ -e "$out/.ready" ] && { echo "$out"; exit 0; }
tmp=
# --one-file-system: never follow a mount left in a chroot.
trap '[ -z "$tmp" ] || rm -rf --one-file-system "$tmp"' EXIT
t0=$SECONDS

if [ ! -e "$base/.ready" ]; then
	tmp=$cache/images/.tmp-base-$suite-$$
	rm -rf --one-file-system "$tmp"
	mkdir -p "$tmp"
	log "base $suite ($base_key) from $mirror"
	"$here/mkbase.sh" "$suite" "$mirror" "$tmp/root" >&2
	touch "$tmp/.ready"
	rm -rf --one-file-system "$base"
	mv "$tmp" "$base"
	log "base $suite done in $((SECONDS - t0)) s"
fi

tmp=$cache/images/.tmp-$suite-$$
rm -rf --one-file-system "$tmp"
mkdir -p "$tmp"
cp -a "$base/root" "$tmp/root"
if [ ${#kit_debs[@]} -gt 0 ]; then
	mkdir -p "$tmp/root/tmp/rnic-kit"
	cp "${kit_debs[@]}" "$tmp/root/tmp/rnic-kit/"
	log "installing the guest kit: $(cd "$tmp/root/tmp/rnic-kit" && echo *.deb)"
	# What a user does: apt install ./the.debs. DKMS builds rnic.ko for the
	# image's kernel (the one whose headers are installed). /proc and /sys
	# are mounted in a private mount namespace that ends with the command.
	unshare --mount --propagation private sh -euc '
		r=$1
		mount -t proc proc "$r/proc"
		mount -t sysfs sys "$r/sys"
		chroot "$r" sh -c "cd /tmp/rnic-kit && apt-get install -y ./*.deb"
		chroot "$r" sh -c "dkms status; ls /lib/modules/*/updates/dkms/rnic.ko*"
	' sh "$tmp/root" >&2
	rm -rf "$tmp/root/tmp/rnic-kit"
fi
# The test unit's boot flag (see the drop-in).
install -D -m 644 "$here/guest/rnic-image-test-flag.conf" \
	"$tmp/root/etc/systemd/system/rnic-image-test.service.d/boot-flag.conf"
# Nothing for systemd's first-boot update units (ldconfig, journal catalog)
# to do on every boot of a throw-away overlay.
touch "$tmp/root/etc/.updated" "$tmp/root/var/.updated"
kver=$(ls "$tmp/root/lib/modules" | sort -V | tail -1)
cp "$tmp/root/boot/vmlinuz-$kver" "$tmp/vmlinuz"
cp "$tmp/root/boot/initrd.img-$kver" "$tmp/initrd.img"
echo "$kver" >"$tmp/kver"
chroot "$tmp/root" dpkg-query -W -f '${Package} ${Version}\n' >"$tmp/packages.txt"
# 1 GiB free for the tests.
mib=$(($(du -sm "$tmp/root" | cut -f1) + 1024))
mke2fs -q -t ext4 -L rnicroot -d "$tmp/root" -F "$tmp/disk.raw" "${mib}M" >&2
rm -rf --one-file-system "$tmp/root"
touch "$tmp/.ready"
rm -rf --one-file-system "$out"
mv "$tmp" "$out"
tmp=
log "$suite done in $((SECONDS - t0)) s: $(du -sh "$out/disk.raw" | cut -f1) used of $mib MiB, kernel $kver"
echo "$out"
