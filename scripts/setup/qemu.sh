#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# QEMU 10.0.x from Debian's trixie source package (Debian patches applied), with
# hw-rnic grafted in as hw/rnic, built as a minimal qemu-system-x86_64 with ccache.
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/qemu-source.sh"

SRC=$RNIC_CACHE/src/qemu-$QEMU_SRC_VERSION
BUILD=$RNIC_CACHE/build/qemu
STAMPS=$RNIC_CACHE/stamps

configure() {
	local want=$QEMU_CONFIGURE_STAMP
	if [ -f "$BUILD/build.ninja" ] && stamp_matches "$STAMPS/qemu-configure" "$want"; then
		return
	fi
	step "configuring qemu (x86_64-softmmu, TCG/KVM, slirp, virtfs, fdt, tools)"
	rm -rf "$BUILD"
	mkdir -p "$BUILD"
	(cd "$BUILD" && PATH=/usr/lib/ccache:$PATH "$SRC/configure" \
		--python=/usr/bin/python3 "${QEMU_CONFIGURE_ARGS[@]}" \
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

qemu_unpack "$SRC"
qemu_graft "$SRC"
configure
build
