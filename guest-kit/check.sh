#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Test `guest-kit`: build the kit (guest-kit/build.sh) and check it for real:
#  1. the packages' control data and file lists (dpkg-deb --info/--contents);
#  2. DKMS builds rnic.ko from rnic-dkms for Debian's 6.12 and 6.1 kernels
#     (the setup's headers in $RNIC_CACHE/kernel), vermagic checked;
#  3. in a Debian 12 and a Debian 13 chroot (mmdebstrap, cached by recipe) the
#     system libibverbs, through its own driver loading, dlopens the provider
#     package's library and matches a stand-in rnic device (a sysfs tree at
#     SYSFS_PATH named like udev's iwp0s4): listed after dpkg -i, not before;
#     the other release's package is refused by its Depends.
# DKMS results are kept per (package content, kernel): unchanged sources are
# not rebuilt. Needs root (chroot), dkms and mmdebstrap.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${RNIC_CACHE:-$HOME/.cache/rnic}
KERNELS=${RNIC_KIT_KERNEL_DIR:-$CACHE/kernel}
STATE=$CACHE/guest-kit-check
MIRROR=http://deb.debian.org/debian
t0=$SECONDS

say() { printf '[guest-kit check] %s\n' "$*"; }
fail() { printf '[guest-kit check] FAIL: %s\n' "$*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (it runs the packages in chroots)"
for t in dkms mmdebstrap dpkg-deb gcc; do
	command -v $t >/dev/null || fail "$t is missing (apt-get install dkms mmdebstrap dpkg-dev gcc)"
done
mkdir -p "$STATE"
RUN=$(mktemp -d "$STATE/run.XXXXXX")
trap 'rm -rf "$RUN"' EXIT

"$top/guest-kit/build.sh" "$RUN/kit" >"$RUN/build.log" 2>&1 ||
	{ cat "$RUN/build.log" >&2; fail "guest-kit/build.sh failed"; }
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/guest-driver/dkms.conf")
DKMS_DEB=$RUN/kit/rnic-dkms_${VER}_all.deb
PROV12=$RUN/kit/rnic-ibverbs-provider_${VER}~deb12_amd64.deb
PROV13=$RUN/kit/rnic-ibverbs-provider_${VER}~deb13_amd64.deb
for d in "$DKMS_DEB" "$PROV12" "$PROV13"; do [ -f "$d" ] || fail "no $(basename "$d")"; done
say "built in $((SECONDS - t0)) s: $(cd "$RUN/kit" && ls | tr '\n' ' ')"

# --- 1. package metadata and contents --------------------------------------
has_file() { dpkg-deb --contents "$1" | awk '{print $NF}' | grep -qx "$2" || fail "$(basename "$1") lacks $2"; }
field() { dpkg-deb --field "$1" "$2"; }
[ "$(field "$DKMS_DEB" Architecture)" = all ] || fail "rnic-dkms is not Architecture: all"
field "$DKMS_DEB" Depends | grep -q '^dkms' || fail "rnic-dkms does not depend on dkms"
for f in dkms.conf Kbuild Makefile main.c ib_main.c rnic.h include/rnic/hw.h include/rnic/abi.h; do
	has_file "$DKMS_DEB" "./usr/src/rnic-$VER/$f"
done
dpkg-deb --ctrl-tarfile "$DKMS_DEB" | tar -xO ./postinst | grep -q "common.postinst rnic $VER" ||
	fail "rnic-dkms postinst does not run dkms's common.postinst"
dpkg-deb --ctrl-tarfile "$DKMS_DEB" | tar -xO ./prerm | grep -q "dkms remove -m rnic -v $VER --all" ||
	fail "rnic-dkms prerm does not remove the module"
for p in "$PROV12:>= 44.0" "$PROV13:>= 56.1"; do
	deb=${p%%:*}
	has_file "$deb" ./etc/libibverbs.d/rnic.driver
	has_file "$deb" ./usr/lib/x86_64-linux-gnu/libibverbs/librnic-rdmav34.so
	field "$deb" Depends | grep -q "libibverbs1 (${p#*:})" || fail "$(basename "$deb"): Depends $(field "$deb" Depends)"
	dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | grep -qx /etc/libibverbs.d/rnic.driver ||
		fail "$(basename "$deb"): rnic.driver is not a conffile"
done
say "package metadata and contents ok"

# --- 2. DKMS builds for 6.12 and 6.1 ----------------------------------------
mkdir -p "$RUN/dkms/root" "$RUN/dkms/tree"
dpkg-deb -x "$DKMS_DEB" "$RUN/dkms/root"
key=$( (cd "$RUN/dkms/root" && find . -type f -print0 | sort -z | xargs -0 sha256sum; dkms --version) |
	sha256sum | cut -c1-16)
dkms add -m rnic -v "$VER" --sourcetree "$RUN/dkms/root/usr/src" --dkmstree "$RUN/dkms/tree" \
	>"$RUN/dkms-add.log" 2>&1 || { cat "$RUN/dkms-add.log" >&2; fail "dkms add"; }
for series in 6.12 6.1; do
	headers=$KERNELS/$series/headers
	[ -f "$KERNELS/$series/kver" ] || fail "no $series headers in $KERNELS (./rnic setup extracts them)"
	kver=$(cat "$KERNELS/$series/kver")
	ok=$STATE/dkms-$key-$kver.ok
	if [ -f "$ok" ]; then
		say "dkms build for $kver: passed before with this exact package ($(cat "$ok"))"
		continue
	fi
	t1=$SECONDS
	dkms build -m rnic -v "$VER" -k "$kver" --kernelsourcedir "$headers" \
		--sourcetree "$RUN/dkms/root/usr/src" --dkmstree "$RUN/dkms/tree" >"$RUN/dkms-$series.log" 2>&1 ||
		{ tail -30 "$RUN/dkms-$series.log" >&2
		  cat "$RUN/dkms/tree/rnic/$VER/build/make.log" >&2 2>/dev/null || true
		  fail "dkms build for $kver"; }
	ko=$RUN/dkms/tree/rnic/$VER/$kver/x86_64/module/rnic.ko
	[ -f "$ko" ] || ko=$(ls "$RUN/dkms/tree/rnic/$VER/$kver/x86_64/module/rnic.ko"* 2>/dev/null | head -1)
	[ -n "$ko" ] && [ -f "$ko" ] || fail "dkms build for $kver left no rnic.ko"
	magic=$(modinfo -F vermagic "$ko")
	[ "${magic%% *}" = "$kver" ] || fail "rnic.ko for $kver has vermagic '$magic'"
	echo "vermagic $magic, built in $((SECONDS - t1)) s on $(date -u +%F)" >"$ok"
	say "dkms build for $kver: rnic.ko, vermagic $magic ($((SECONDS - t1)) s)"
done

# --- 3. the provider in Debian 12 and 13 chroots -----------------------------
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$RUN/no-rdma-netlink.so" \
	"$top/guest-kit/no-rdma-netlink.c" -ldl || fail "building the netlink shim"

chroot_tar() { # chroot_tar SUITE -> a cached tarball of a minimal chroot with libibverbs
	local recipe="mmdebstrap --variant=essential --include=libibverbs1,ibverbs-utils $1 TAR $MIRROR"
	local tar=$STATE/chroot-$1-$(echo "$recipe" | sha256sum | cut -c1-12).tar
	if [ ! -f "$tar" ]; then
		say "creating the $1 chroot (once): ${recipe/TAR/$tar}" >&2
		rm -f "$tar.part"
		mmdebstrap --quiet --variant=essential --include=libibverbs1,ibverbs-utils "$1" "$tar.part" "$MIRROR" \
			>"$RUN/mmdebstrap-$1.log" 2>&1 || { tail -20 "$RUN/mmdebstrap-$1.log" >&2; fail "mmdebstrap $1"; }
		mv "$tar.part" "$tar"
	fi
	echo "$tar"
}

# A stand-in for what the kernel shows of an rnic device once udev renamed it.
fake_sysfs() { # fake_sysfs ROOT
	local s=$1/fakesys dev=iwp0s4
	mkdir -p "$s/class/infiniband_verbs/uverbs0" "$s/class/infiniband/$dev/device" "$1/dev/infiniband"
	echo 6 >"$s/class/infiniband_verbs/abi_version"
	echo $dev >"$s/class/infiniband_verbs/uverbs0/ibdev"
	echo 231:192 >"$s/class/infiniband_verbs/uverbs0/dev"
	echo 1 >"$s/class/infiniband_verbs/uverbs0/abi_version"	# RNIC_UVERBS_ABI_VERSION
	echo '4: RNIC' >"$s/class/infiniband/$dev/node_type"
	echo 5254:00ff:fe12:3456 >"$s/class/infiniband/$dev/node_guid"
	echo pci:v00001AF4d000010F5sv00001AF4sd00001100bc02sc00i00 >"$s/class/infiniband/$dev/device/modalias"
	: >"$1/dev/infiniband/uverbs0"
	cp "$RUN/no-rdma-netlink.so" "$1/no-rdma-netlink.so"
}

ibv_devices_in() { # ibv_devices_in ROOT OUTFILE
	chroot "$1" env -i PATH=/usr/bin:/bin SYSFS_PATH=/fakesys IBV_SHOW_WARNINGS=1 \
		LD_PRELOAD=/no-rdma-netlink.so ibv_devices >"$2" 2>&1
}

check_release() { # check_release SUITE GOOD_DEB OTHER_DEB
	local suite=$1 good=$2 other=$3 root=$RUN/root-$1 t1=$SECONDS libv
	mkdir -p "$root"
	tar -xf "$(chroot_tar "$suite")" -C "$root"
	fake_sysfs "$root"
	libv=$(chroot "$root" dpkg-query -W -f '${Version}' libibverbs1)
	ibv_devices_in "$root" "$RUN/before-$suite" || true
	# libibverbs sees the stand-in device but has no driver for it yet.
	grep -q 'no userspace device-specific driver found for iwp0s4' "$RUN/before-$suite" ||
		{ cat "$RUN/before-$suite" >&2; fail "$suite: libibverbs did not see the stand-in device"; }
	grep -qE '^[[:space:]]+iwp0s4[[:space:]]' "$RUN/before-$suite" &&
		fail "$suite: the stand-in device has a driver before the package is installed"
	cp "$good" "$other" "$root/tmp/"
	if chroot "$root" dpkg -i "/tmp/$(basename "$other")" >"$RUN/other-$suite.log" 2>&1; then
		fail "$suite: $(basename "$other") installed despite its Depends"
	fi
	chroot "$root" dpkg --purge rnic-ibverbs-provider >/dev/null 2>&1 || true
	chroot "$root" dpkg -i "/tmp/$(basename "$good")" >"$RUN/install-$suite.log" 2>&1 ||
		{ cat "$RUN/install-$suite.log" >&2; fail "$suite: dpkg -i $(basename "$good")"; }
	ibv_devices_in "$root" "$RUN/after-$suite" || { cat "$RUN/after-$suite" >&2; fail "$suite: ibv_devices"; }
	grep -qE '^[[:space:]]+iwp0s4[[:space:]]+525400fffe123456$' "$RUN/after-$suite" ||
		{ cat "$RUN/after-$suite" >&2; fail "$suite: libibverbs did not match the device to the rnic provider"; }
	grep -q 'Warning' "$RUN/after-$suite" && { cat "$RUN/after-$suite" >&2; fail "$suite: libibverbs warned"; }
	say "$suite (libibverbs1 $libv): provider loaded and matched iwp0s4; $(basename "$other") refused ($((SECONDS - t1)) s)"
	rm -rf "$root"
}
check_release bookworm "$PROV12" "$PROV13"
check_release trixie "$PROV13" "$PROV12"
say "passed in $((SECONDS - t0)) s"
