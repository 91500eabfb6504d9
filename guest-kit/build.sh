#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ./rnic guest-kit [DIR]: the packages a Debian 12 or 13 guest installs to use
# -device rnic (docs/guest-kit.md):
#   rnic-dkms_<ver>_all.deb                     guest-driver/ as DKMS source
#   rnic-ibverbs-provider_<ver>~deb12_amd64.deb  the provider for bookworm's libibverbs 44
#   rnic-ibverbs-provider_<ver>~deb13_amd64.deb  the provider for trixie's libibverbs 56.1
# The provider is built inside trixie's rdma-core 56.1 source (its internal
# provider API is not packaged); the same library loads into bookworm's 44.0,
# which is checked here symbol by symbol against bookworm's libibverbs.so.1.
set -euo pipefail
case "${1:-}" in
-h|--help) sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
-*) sed -n '3p' "$0" | sed 's/^# //' >&2; exit 2 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${RNIC_CACHE:-$HOME/.cache/rnic}
OUT=$(mkdir -p "${1:-$CACHE/guest-kit}" && cd "${1:-$CACHE/guest-kit}" && pwd)
WORK=$CACHE/guest-kit-work
RDMA_CORE=56.1-1		# trixie's rdma-core, the tree the provider is built in
BOOKWORM_IBVERBS=44.0-2		# bookworm's libibverbs1, checked against
MAINT='rnic <rnic@localhost>'

say() { printf '[guest-kit] %s\n' "$*"; }
die() { printf '[guest-kit] error: %s\n' "$*" >&2; exit 1; }
for t in dpkg-deb objdump cmake ninja gcc apt-get curl; do
	command -v $t >/dev/null || die "$t is missing (apt-get install dpkg-dev binutils cmake ninja-build gcc curl)"
done
mkdir -p "$WORK"
exec 9>"$WORK/.lock"
flock 9

VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/guest-driver/dkms.conf")
[ -n "$VER" ] || die "no PACKAGE_VERSION in guest-driver/dkms.conf"

# Files in a package tree are root's, 0644/0755, whatever the checkout's umask.
finish_tree() { # finish_tree PKGDIR
	find "$1" -type d -exec chmod 0755 {} +
	find "$1" -type f ! -path "$1/DEBIAN/p*" -exec chmod 0644 {} +
	echo "Installed-Size: $(du -sk --exclude=DEBIAN "$1" | cut -f1)" >>"$1/DEBIAN/control"
}

copyright() { # copyright PKGDIR PACKAGE
	mkdir -p "$1/usr/share/doc/$2"
	cat >"$1/usr/share/doc/$2/copyright" <<E
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: rnic
Files: *
Copyright: the rnic authors
License: GPL-2.0 OR Linux-OpenIB
 The rnic guest driver and rdma-core provider are dual-licensed under the
 GNU General Public License version 2 (/usr/share/common-licenses/GPL-2)
 or the OpenIB.org BSD license (rdma-core's COPYING.BSD_MIT).
E
}

# --- rnic-dkms: guest-driver/ + include/rnic/ at /usr/src/rnic-VER ---------
build_dkms_deb() {
	local pkg=$WORK/pkg-dkms src deb=$OUT/rnic-dkms_${VER}_all.deb f
	rm -rf "$pkg"
	src=$pkg/usr/src/rnic-$VER
	mkdir -p "$src/include/rnic" "$pkg/DEBIAN"
	for f in "$top"/guest-driver/*.c "$top"/guest-driver/*.h "$top"/guest-driver/Kbuild \
		"$top"/guest-driver/Makefile "$top"/guest-driver/dkms.conf; do
		cp "$f" "$src/"
	done
	cp "$top"/include/rnic/*.h "$src/include/rnic/"
	copyright "$pkg" rnic-dkms
	cat >"$pkg/DEBIAN/control" <<E
Package: rnic-dkms
Version: $VER
Architecture: all
Section: kernel
Priority: optional
Maintainer: $MAINT
Depends: dkms (>= 2.1.0.0)
Recommends: rnic-ibverbs-provider
Description: rnic: guest driver for QEMU's emulated iWARP RNIC (DKMS)
 rnic.ko drives QEMU's -device rnic (PCI 1af4:10f5): an Ethernet
 interface and an iWARP RDMA device (kernel verbs, uverbs, iw_cm).
 DKMS builds it for every installed kernel that has its headers
 (install linux-headers-\$(uname -r)).
E
	# What dh_dkms writes (postinst-dkms, prerm-dkms), for a package built without debhelper.
	cat >"$pkg/DEBIAN/postinst" <<E
#!/bin/sh
set -e
case "\$1" in
configure)
	/usr/lib/dkms/common.postinst rnic $VER /usr/share/rnic-dkms "" "\$2"
	;;
esac
exit 0
E
	cat >"$pkg/DEBIAN/prerm" <<E
#!/bin/sh
set -e
case "\$1" in
remove|upgrade|deconfigure)
	if [ "\$(dkms status -m rnic -v $VER)" ]; then
		dkms remove -m rnic -v $VER --all
	fi
	;;
esac
exit 0
E
	chmod 0755 "$pkg/DEBIAN/postinst" "$pkg/DEBIAN/prerm"
	finish_tree "$pkg"
	dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
	say "built $(basename "$deb")"
}

# --- the provider, in trixie's rdma-core 56.1 ------------------------------
RC_VER=${RDMA_CORE%-*}
RC_SRC=$WORK/rdma-core-$RC_VER
RC_BUILD=$WORK/rdma-core-build

fetch_rdma_core() { # -> path of the orig tarball (the setup's copy when present)
	local have=$CACHE/downloads/rdma-core/rdma-core_$RC_VER.orig.tar.gz dl=$WORK/downloads line url name sum
	[ -f "$have" ] && { echo "$have"; return; }
	[ -f "$dl/rdma-core_$RC_VER.orig.tar.gz" ] && { echo "$dl/rdma-core_$RC_VER.orig.tar.gz"; return; }
	mkdir -p "$dl"
	line=$(apt-get source --print-uris "rdma-core=$RDMA_CORE" 2>/dev/null | grep "orig.tar") ||
		die "apt knows no rdma-core $RDMA_CORE source (add deb-src for trixie: ./rnic setup does)"
	url=$(echo "$line" | awk '{print $1}' | tr -d "'")
	name=$(echo "$line" | awk '{print $2}')
	sum=$(echo "$line" | awk '{print $4}' | sed 's/^SHA256://')
	say "downloading $name" >&2
	curl -fsSL -o "$dl/$name.part" "$url" || die "download of $url failed"
	echo "$sum  $dl/$name.part" | sha256sum -c --quiet - >&2 || die "checksum mismatch for $name"
	mv "$dl/$name.part" "$dl/$name"
	echo "$dl/$name"
}

sync_file() { cmp -s "$1" "$2" || { mkdir -p "$(dirname "$2")"; cp "$1" "$2"; }; }

build_provider() {
	local f rel
	if [ ! -f "$RC_SRC/.unpacked" ]; then
		rm -rf "$RC_SRC" && mkdir -p "$RC_SRC"
		tar -xzf "$(fetch_rdma_core)" -C "$RC_SRC" --strip-components=1
		sed -i 's|^add_subdirectory(providers/siw)|&\nadd_subdirectory(providers/rnic)|' "$RC_SRC/CMakeLists.txt"
		grep -q 'add_subdirectory(providers/rnic)' "$RC_SRC/CMakeLists.txt" || die "could not graft providers/rnic"
		touch "$RC_SRC/.unpacked"
	fi
	while IFS= read -r -d '' f; do
		rel=${f#"$top/provider/"}
		sync_file "$f" "$RC_SRC/providers/rnic/$rel"
	done < <(find "$top/provider" -type f -print0)
	for f in "$top"/include/rnic/*.h; do
		sync_file "$f" "$RC_SRC/providers/rnic/include/rnic/${f##*/}"
	done
	if [ ! -f "$RC_BUILD/build.ninja" ]; then
		say "configuring rdma-core $RC_VER with Debian's paths and build flags"
		mkdir -p "$RC_BUILD"
		(cd "$RC_BUILD" && CFLAGS="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)" \
			LDFLAGS="$(dpkg-buildflags --get LDFLAGS)" \
			cmake -GNinja -DCMAKE_BUILD_TYPE=Release -DCMAKE_SKIP_RPATH=ON \
			-DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu \
			-DCMAKE_INSTALL_SYSCONFDIR=/etc -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 \
			"$RC_SRC" >"$RC_BUILD.configure.log" 2>&1) ||
			{ rm -f "$RC_BUILD/build.ninja"; die "rdma-core cmake failed; see $RC_BUILD.configure.log"; }
	fi
	say "building librnic-rdmav34.so"
	ninja -j2 -C "$RC_BUILD" rnic-rdmav34 >"$RC_BUILD.build.log" 2>&1 ||
		{ tail -20 "$RC_BUILD.build.log" >&2; die "provider build failed; see $RC_BUILD.build.log"; }
	if readelf -d "$RC_BUILD/lib/librnic-rdmav34.so" | grep -qE 'RPATH|RUNPATH'; then
		die "librnic-rdmav34.so carries an RPATH into the build tree"
	fi
}

# Every symbol the provider takes from libibverbs must exist, at the same
# version node, in the target's libibverbs.so.1.
check_symbols() { # check_symbols PROVIDER LIBIBVERBS
	local need have missing
	# objdump -T: "... *UND* 0.. (IBVERBS_X) name" and "... .text 0.. IBVERBS_X name"
	need=$(objdump -T "$1" | awk 'NF > 2 && /\*UND\*/ && $(NF-1) ~ /^\(IBVERBS_/ {print $(NF-1) " " $NF}' | tr -d '()' | sort -u)
	have=$(objdump -T "$2" | awk 'NF > 2 && !/\*UND\*/ && $(NF-1) ~ /^IBVERBS_/ {print $(NF-1) " " $NF}' | sort -u)
	[ -n "$need" ] || die "found no libibverbs symbols in $(basename "$1")"
	missing=$(comm -23 <(echo "$need") <(echo "$have"))
	[ -z "$missing" ] || die "$(basename "$1") needs symbols $(basename "$2") lacks: $missing"
	echo "$need" | wc -l
}

bookworm_libibverbs() { # -> bookworm's libibverbs.so.1, from the archive's libibverbs1
	local dir=$WORK/libibverbs1-$BOOKWORM_IBVERBS
	if [ ! -f "$dir/.ready" ]; then
		rm -rf "$dir" && mkdir -p "$dir"
		(cd "$dir" && apt-get download "libibverbs1=$BOOKWORM_IBVERBS" >/dev/null 2>&1) ||
			die "apt-get download libibverbs1=$BOOKWORM_IBVERBS failed"
		dpkg-deb -x "$dir"/libibverbs1_*.deb "$dir/root"
		touch "$dir/.ready"
	fi
	echo "$dir/root/usr/lib/x86_64-linux-gnu/libibverbs.so.1"
}

build_provider_deb() { # build_provider_deb deb12|deb13 "LIBIBVERBS DEPENDS" RELEASE
	local tag=$1 dep=$2 release=$3 pkg=$WORK/pkg-provider-$1 so libc
	local deb=$OUT/rnic-ibverbs-provider_${VER}~${tag}_amd64.deb
	so=$RC_BUILD/lib/librnic-rdmav34.so
	rm -rf "$pkg"
	mkdir -p "$pkg/DEBIAN" "$pkg/etc/libibverbs.d" "$pkg/usr/lib/x86_64-linux-gnu/libibverbs"
	echo 'driver rnic' >"$pkg/etc/libibverbs.d/rnic.driver"
	echo /etc/libibverbs.d/rnic.driver >"$pkg/DEBIAN/conffiles"
	strip --strip-unneeded -o "$pkg/usr/lib/x86_64-linux-gnu/libibverbs/librnic-rdmav34.so" "$so"
	libc=$(objdump -T "$so" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
	copyright "$pkg" rnic-ibverbs-provider
	cat >"$pkg/DEBIAN/control" <<E
Package: rnic-ibverbs-provider
Version: $VER~$tag
Architecture: amd64
Section: net
Priority: optional
Maintainer: $MAINT
Depends: libc6 (>= $libc), $dep
Recommends: rdma-core
Enhances: libibverbs1
Suggests: ibverbs-utils, rdmacm-utils, perftest
Description: rnic: libibverbs provider for QEMU's emulated iWARP RNIC ($release)
 Adds the rnic provider (librnic-rdmav34.so, /etc/libibverbs.d/rnic.driver)
 to the system's libibverbs, so verbs applications use the rnic device
 with no LD_LIBRARY_PATH. The kernel side is rnic-dkms. rdma-core's udev
 rules load rdma_ucm and name the device (iwp0s4 for PCI 00:04.0).
E
	finish_tree "$pkg"
	dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
	say "built $(basename "$deb")"
}

build_dkms_deb
build_provider
n=$(check_symbols "$RC_BUILD/lib/librnic-rdmav34.so" "$(bookworm_libibverbs)")
say "librnic-rdmav34.so: its $n libibverbs symbols all exist in bookworm's libibverbs $BOOKWORM_IBVERBS"
build_provider_deb deb12 'libibverbs1 (>= 44.0), libibverbs1 (<< 45~)' 'Debian 12 bookworm, rdma-core 44'
build_provider_deb deb13 'libibverbs1 (>= 56.1), libibverbs1 (<< 56.2~)' 'Debian 13 trixie, rdma-core 56.1'

say "the kit in $OUT:"
for d in "$OUT/rnic-dkms_${VER}_all.deb" "$OUT"/rnic-ibverbs-provider_"${VER}"~deb1[23]_amd64.deb; do
	printf '  %-48s %s %s\n' "$(basename "$d")" "$(dpkg-deb -f "$d" Package)" "$(dpkg-deb -f "$d" Version)"
done
