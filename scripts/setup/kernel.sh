#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest kernels from Debian: the 6.12 image + headers (bookworm-security) extracted
# into the cache (never installed into the host's /boot), the 6.1 headers for the
# driver's compatibility build, and siw.ko built out of tree from linux-source-6.12
# (Debian's kernels do not ship siw). What was fetched is kept: a security update
# in the archive does not change a warm cache.
set -euo pipefail
. "$(dirname "$0")/common.sh"

DL=$RNIC_CACHE/downloads/kernel
KDIR=$RNIC_CACHE/kernel

# Resolve a meta package (e.g. linux-image-6.12-amd64) to the versioned package it depends on.
resolve_meta() {
	local pkg
	pkg=$(apt-cache depends "$1" 2>/dev/null | awk -v p="$2" '$1=="Depends:" && $2 ~ p {print $2; exit}')
	[ -n "$pkg" ] || die "cannot resolve $1 in apt (is $KERNEL_SUITE configured? run scripts/setup/host-packages.sh)"
	echo "$pkg"
}

download() { # download PKG... into $DL, skipping cached ones
	local p
	mkdir -p "$DL"
	for p in "$@"; do
		ls "$DL/${p}_"*.deb >/dev/null 2>&1 && continue
		need_download "$p"
		step "downloading $p"
		(cd "$DL" && apt-get download "$p" >/dev/null 2>&1) || die "apt-get download $p failed"
	done
}

# Extract image + headers (+common, +kbuild) of one kernel into $KDIR/<series>/root,
# and make the headers usable from there (their Makefile includes an absolute path).
prepare_series() {
	local series=$1 headers_meta=$2 image_meta=${3:-}
	local dir=$KDIR/$series
	[ -f "$dir/.ready" ] && return
	local hdr kver common kbuild pkgs=()
	need_download "the $series kernel packages"
	hdr=$(resolve_meta "$headers_meta" '^linux-headers-[0-9]')
	kver=${hdr#linux-headers-}
	common=$(apt-cache depends "$hdr" | awk '$1=="Depends:" && $2 ~ /^linux-headers-.*-common/ {print $2; exit}')
	kbuild=$(apt-cache depends "$hdr" | awk '$1=="Depends:" && $2 ~ /^linux-kbuild-/ {print $2; exit}')
	pkgs=("$hdr" "$common" "$kbuild")
	[ -n "$image_meta" ] && pkgs+=("linux-image-$kver")
	download "${pkgs[@]}"
	step "extracting kernel $kver into $dir"
	rm -rf "$dir"
	mkdir -p "$dir/root"
	local p
	for p in "${pkgs[@]}"; do
		dpkg-deb -x "$DL/${p}_"*.deb "$dir/root"
	done
	sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" "$dir/root/usr/src/linux-headers-$kver/Makefile"
	echo "$kver" >"$dir/kver"
	ln -sfn "root/usr/src/linux-headers-$kver" "$dir/headers"
	if [ -n "$image_meta" ]; then
		depmod -b "$dir/root" "$kver"
		ln -sfn "root/boot/vmlinuz-$kver" "$dir/vmlinuz"
	fi
	touch "$dir/.ready"
}

# siw from the Linux source of the same series, built against the extracted headers.
# siw's protocol settings are compile-time constants (siw_main.c, siw_cm.c, siw.h), so
# the variants the interop matrix (tests/conformance/interop-matrix.py) needs are
# built from the same source with a sed script applied to every source file (it must
# change something):
#   siw           stock (MPA rev 2, CRC not required, no RTR requested)
#   siw-crc       mpa_crc_required = true (requests and insists on MPA CRC)
#   siw-rev1      mpa_version = 1 (MPA revision 1 Requests: no IRD/ORD, no RTR)
#   siw-p2p       peer_to_peer = true (requests RTR, offering zero-length Write or Read)
#   siw-p2p-read  peer_to_peer = true, offering only zero-length Read RTR
#   siw-ird1      at most 1 outstanding RDMA Read each way (max IRD/ORD 1)
SIW_VARIANTS=(
	"siw|"
	"siw-crc|s/^const bool mpa_crc_required;/const bool mpa_crc_required = true;/"
	"siw-rev1|s/^u_char mpa_version = MPA_REVISION_2;/u_char mpa_version = MPA_REVISION_1;/"
	"siw-p2p|s/^const bool peer_to_peer;/const bool peer_to_peer = true;/"
	"siw-p2p-read|s/^const bool peer_to_peer;/const bool peer_to_peer = true;/;s/^static __be16 rtr_type = MPA_V2_RDMA_READ_RTR | MPA_V2_RDMA_WRITE_RTR;/static __be16 rtr_type = MPA_V2_RDMA_READ_RTR;/"
	"siw-ird1|s/^#define SIW_MAX_ORD_QP 128$/#define SIW_MAX_ORD_QP 1/;s/^#define SIW_MAX_IRD_QP 128$/#define SIW_MAX_IRD_QP 1/"
)

extract_siw_source() { # extract_siw_source KVER -> prints the source dir
	local kver=$1 src=$RNIC_CACHE/src/siw-$1
	if [ ! -f "$src/siw_main.c" ]; then
		download "$KERNEL_META_SOURCE" >&2
		step "extracting drivers/infiniband/sw/siw from $KERNEL_META_SOURCE" >&2
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		dpkg-deb --fsys-tarfile "$DL/${KERNEL_META_SOURCE}_"*.deb |
			tar -x -C "$src.tmp" --wildcards '*/linux-source-*.tar.xz'
		tar -xJf "$src.tmp"/usr/src/linux-source-*.tar.xz -C "$src.tmp" --wildcards \
			'*/drivers/infiniband/sw/siw/*'
		mv "$src.tmp"/linux-source-*/drivers/infiniband/sw/siw "$src"
		rm -rf "$src.tmp"
	fi
	echo "$src"
}

build_siw() { # build_siw NAME SED_SCRIPT
	local name=$1 edit=$2 dir=$KDIR/6.12 kver src out
	kver=$(cat "$dir/kver")
	out=$dir/$name
	if [ -f "$out/siw.ko" ] && stamp_matches "$out/.stamp" "$kver $edit"; then
		return
	fi
	src=$(extract_siw_source "$kver")
	step "building $name (siw.ko) for $kver"
	rm -rf "$out"
	mkdir -p "$out"
	cp "$src"/*.c "$src"/*.h "$out"/
	if [ -n "$edit" ]; then
		local f changed=0
		for f in "$out"/*.c "$out"/*.h; do
			sed -i "$edit" "$f"
			cmp -s "$f" "$src/${f##*/}" || changed=$((changed + 1))
		done
		[ $changed -gt 0 ] || die "$name: the edit '$edit' changed nothing in siw"
	fi
	# The in-tree Makefile keys on CONFIG_RDMA_SIW, which Debian leaves unset.
	printf 'obj-m := siw.o\nsiw-y := %s\n' \
		"$(cd "$src" && ls siw_*.c | sed 's/\.c$/.o/' | tr '\n' ' ')" >"$out/Kbuild"
	make -C "$dir/headers" M="$out" modules >"$out/build.log" 2>&1 ||
		{ tail -20 "$out/build.log" >&2; die "$name build failed; see $out/build.log"; }
	stamp_write "$out/.stamp" "$kver $edit"
	ok "$name: $out/siw.ko"
}

prepare_series 6.12 "$KERNEL_META_HEADERS" "$KERNEL_META_IMAGE"
prepare_series 6.1 "$KERNEL_61_HEADERS"
for v in "${SIW_VARIANTS[@]}"; do
	build_siw "${v%%|*}" "${v#*|}"
done
ok "guest kernel $(cat "$KDIR/6.12/kver"), 6.1 headers $(cat "$KDIR/6.1/kver")"
