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
build_siw() {
	local dir=$KDIR/6.12 kver src out=$RNIC_CACHE/kernel/6.12/siw
	kver=$(cat "$dir/kver")
	if [ -f "$out/siw.ko" ] && stamp_matches "$out/.stamp" "$kver"; then
		return
	fi
	download "$KERNEL_META_SOURCE"
	src=$RNIC_CACHE/src/siw-$kver
	if [ ! -f "$src/siw_main.c" ]; then
		step "extracting drivers/infiniband/sw/siw from $KERNEL_META_SOURCE"
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		dpkg-deb --fsys-tarfile "$DL/${KERNEL_META_SOURCE}_"*.deb |
			tar -x -C "$src.tmp" --wildcards '*/linux-source-*.tar.xz'
		tar -xJf "$src.tmp"/usr/src/linux-source-*.tar.xz -C "$src.tmp" --wildcards \
			'*/drivers/infiniband/sw/siw/*'
		mv "$src.tmp"/linux-source-*/drivers/infiniband/sw/siw "$src"
		rm -rf "$src.tmp"
	fi
	step "building siw.ko for $kver"
	rm -rf "$out"
	mkdir -p "$out"
	cp "$src"/*.c "$src"/*.h "$out"/
	# The in-tree Makefile keys on CONFIG_RDMA_SIW, which Debian leaves unset.
	printf 'obj-m := siw.o\nsiw-y := %s\n' \
		"$(cd "$src" && ls siw_*.c | sed 's/\.c$/.o/' | tr '\n' ' ')" >"$out/Kbuild"
	make -C "$dir/headers" M="$out" modules >"$out/build.log" 2>&1 ||
		{ tail -20 "$out/build.log" >&2; die "siw build failed; see $out/build.log"; }
	stamp_write "$out/.stamp" "$kver"
	ok "siw.ko for $kver"
}

prepare_series 6.12 "$KERNEL_META_HEADERS" "$KERNEL_META_IMAGE"
prepare_series 6.1 "$KERNEL_61_HEADERS"
build_siw
ok "guest kernel $(cat "$KDIR/6.12/kver"), 6.1 headers $(cat "$KDIR/6.1/kver")"
