#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# QEMU 10.0.x from Debian's trixie source package (Debian patches applied), with
# hw-rnic grafted in as hw/rnic, built as a minimal qemu-system-x86_64 with ccache.
set -euo pipefail
. "$(dirname "$0")/common.sh"

DL=$RNIC_CACHE/downloads/qemu
SRC=$RNIC_CACHE/src/qemu-$QEMU_SRC_VERSION
BUILD=$RNIC_CACHE/build/qemu
STAMPS=$RNIC_CACHE/stamps

fetch_and_unpack() {
	if [ ! -f "$SRC/.rnic-unpacked" ]; then
		mkdir -p "$DL" "$RNIC_CACHE/src"
		if ! ls "$DL"/qemu_*.dsc >/dev/null 2>&1; then
			need_download "the qemu $QEMU_SRC_VERSION source"
			step "downloading qemu $QEMU_SRC_VERSION source ($QEMU_SUITE)"
			(cd "$DL" && apt-get source --download-only "qemu=1:$QEMU_SRC_VERSION" >/dev/null 2>&1) ||
				die "cannot download qemu source 1:$QEMU_SRC_VERSION (is deb-src for $QEMU_SUITE configured?)"
		fi
		step "unpacking qemu with its Debian patches"
		rm -rf "$SRC"
		dpkg-source --no-check -x "$DL"/qemu_*.dsc "$SRC" >/dev/null ||
			die "dpkg-source failed to unpack qemu"
		touch "$SRC/.rnic-unpacked"
	fi
}

graft() {
	local dst=$SRC/hw/rnic f rel
	# hw-rnic/ (adapter + engine) and include/rnic/ become hw/rnic in the tree.
	while IFS= read -r -d '' f; do
		rel=${f#"$RNIC_TOP/hw-rnic/"}
		sync_file "$f" "$dst/$rel"
	done < <(find "$RNIC_TOP/hw-rnic" -type f \( -name '*.c' -o -name '*.h' -o -name 'meson.build' \
		-o -name 'Kconfig' -o -name 'trace-events' \) -not -path '*/tests/*' -print0)
	while IFS= read -r -d '' f; do
		rel=${f#"$RNIC_TOP/include/"}
		sync_file "$f" "$dst/include/$rel"
	done < <(find "$RNIC_TOP/include/rnic" -type f -name '*.h' -print0)
	# Remove files that left the repo.
	while IFS= read -r -d '' f; do
		rel=${f#"$dst/"}
		case "$rel" in
		include/*) [ -f "$RNIC_TOP/include/${rel#include/}" ] || rm -f "$f" ;;
		*) [ -f "$RNIC_TOP/hw-rnic/$rel" ] || rm -f "$f" ;;
		esac
	done < <(find "$dst" -type f -print0 2>/dev/null)
	# The three one-line edits.
	grep -q "subdir('rnic')" "$SRC/hw/meson.build" || echo "subdir('rnic')" >>"$SRC/hw/meson.build"
	grep -q 'source rnic/Kconfig' "$SRC/hw/Kconfig" || echo 'source rnic/Kconfig' >>"$SRC/hw/Kconfig"
	if ! grep -q "'hw/rnic'" "$SRC/meson.build"; then
		sed -i "s|^\( *\)'hw/rtc',|\1'hw/rnic',\n\1'hw/rtc',|" "$SRC/meson.build"
		grep -q "'hw/rnic'" "$SRC/meson.build" || die "could not add hw/rnic to trace_events_subdirs"
	fi
}

configure() {
	local want="qemu=$QEMU_SRC_VERSION cfg=6"
	if [ -f "$BUILD/build.ninja" ] && stamp_matches "$STAMPS/qemu-configure" "$want"; then
		return
	fi
	step "configuring qemu (x86_64-softmmu, TCG/KVM, slirp, virtfs, fdt, tools)"
	rm -rf "$BUILD"
	mkdir -p "$BUILD"
	(cd "$BUILD" && PATH=/usr/lib/ccache:$PATH "$SRC/configure" \
		--python=/usr/bin/python3 --target-list=x86_64-softmmu \
		--without-default-features \
		--enable-tcg --enable-kvm --enable-slirp --enable-virtfs --enable-attr --enable-cap-ng \
		--enable-fdt=system --enable-pixman --enable-tools \
		--disable-docs --disable-werror --disable-download --disable-install-blobs \
		>"$BUILD.configure.log" 2>&1) ||
		die "qemu configure failed; see $BUILD.configure.log"
	stamp_write "$STAMPS/qemu-configure" "$want"
}

build() {
	step "building qemu-system-x86_64 and qemu-img (ccache in $CCACHE_DIR; the first build takes ~15 min on 2 cores)"
	PATH=/usr/lib/ccache:$PATH ninja_progress "$BUILD.build.log" qemu -C "$BUILD" qemu-system-x86_64 qemu-img ||
		{ tail -40 "$BUILD.build.log" >&2; die "qemu build failed; see $BUILD.build.log"; }
	local devs
	devs=$("$BUILD/qemu-system-x86_64" -device help 2>&1)
	grep -q '"virtio-9p-pci"' <<<"$devs" || die "the built QEMU has no virtio-9p-pci (virtfs): the lab needs it"
	if [ -f "$RNIC_TOP/hw-rnic/rnic.c" ] || ls "$RNIC_TOP"/hw-rnic/rnic*.c >/dev/null 2>&1; then
		grep -q '"rnic"' <<<"$devs" || die "the built QEMU does not list the rnic device"
	fi
	ok "$BUILD/qemu-system-x86_64"
}

fetch_and_unpack
graft
configure
build
