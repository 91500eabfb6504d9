#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A second qemu-system-x86_64 with rnic, built with AddressSanitizer and
# UndefinedBehaviorSanitizer, for suite asan (tests/asan/, docs/sanitizers.md).
# It has its own copy of QEMU's source, graft, build and ccache under
# $RNIC_CACHE/qemu-asan/, so it never shares a half-grafted tree with qemu.sh,
# and it is rebuilt only when the grafted files or this script change (stamp).
# Config: qemu.sh's minus slirp and the tools, and only the devices the lab and
# the qtests use (configs/devices/x86_64-softmmu/rnic-asan.mak, written below).
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/qemu-source.sh"

HOME_ASAN=$RNIC_CACHE/qemu-asan
SRC=$HOME_ASAN/src
BUILD=$HOME_ASAN/build
BIN=$BUILD/qemu-system-x86_64
export CCACHE_DIR=$HOME_ASAN/ccache
# The devices the lab (tests/vm/lab.py) and the qtests put on their command lines.
# PCI_BRIDGE: pcie-pci-bridge calls its hotplug callbacks, but its Kconfig
# entry does not select it (the link fails without).
DEVICES='CONFIG_Q35=y
CONFIG_RNIC=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_NET=y
CONFIG_VIRTIO_9P=y
CONFIG_ISA_DEBUG=y
CONFIG_PCIE_PORT=y
CONFIG_PCIE_PCI_BRIDGE=y
CONFIG_PCI_BRIDGE=y'
WANT_DEVICES='"rnic" "virtio-net-pci" "virtio-9p-pci" "isa-debug-exit" "pcie-root-port" "pcie-pci-bridge"'

# The build's inputs: QEMU's version, this script and its helper, every grafted file.
inputs_hash() {
	{
		echo "qemu=$QEMU_SRC_VERSION"
		cat "$0" "$(dirname "$0")/qemu-source.sh"
		qemu_graft_files | xargs -0 sha256sum | sed "s|  $RNIC_TOP/| |"
	} | sha256sum | cut -d' ' -f1
}

# configure's arguments (after --python and the target list).
CONFIG_ARGS='--without-default-features --without-default-devices --with-devices-x86_64=rnic-asan
--enable-tcg --enable-kvm --enable-virtfs --enable-attr --enable-cap-ng --enable-fdt=system
--enable-pixman --enable-asan --enable-ubsan
--disable-docs --disable-werror --disable-download --disable-install-blobs'

configure() {
	local want c
	# Only what configure sees: a change elsewhere in this script does not
	# start the build from scratch.
	want="qemu=$QEMU_SRC_VERSION $(printf '%s\n%s' "$CONFIG_ARGS" "$DEVICES" | sha256sum | cut -c1-16)"
	if [ -f "$BUILD/build.ninja" ] && stamp_matches "$HOME_ASAN/configure.stamp" "$want"; then
		return
	fi
	step "configuring the sanitized qemu (x86_64-softmmu, --enable-asan --enable-ubsan, lab devices only)"
	printf '# rnic-asan: the devices rnic'\''s lab and qtests use (scripts/setup/qemu-asan.sh)\n%s\n' \
		"$DEVICES" >"$SRC/configs/devices/x86_64-softmmu/rnic-asan.mak"
	rm -rf "$BUILD"
	mkdir -p "$BUILD"
	# shellcheck disable=SC2086 # CONFIG_ARGS is a list of words
	(cd "$BUILD" && PATH=/usr/lib/ccache:$PATH "$SRC/configure" \
		--python=/usr/bin/python3 --target-list=x86_64-softmmu $CONFIG_ARGS \
		>"$HOME_ASAN/configure.log" 2>&1) ||
		die "sanitized qemu configure failed; see $HOME_ASAN/configure.log"
	for c in $(printf '%s\n' "$DEVICES" | cut -d= -f1); do
		grep -q "^$c=y" "$BUILD/x86_64-softmmu-config-devices.mak" ||
			die "the sanitized qemu's device config lacks $c; see $BUILD/x86_64-softmmu-config-devices.mak"
	done
	stamp_write "$HOME_ASAN/configure.stamp" "$want"
}

build() {
	local devs d t0=$SECONDS
	step "building the sanitized qemu-system-x86_64 (log $HOME_ASAN/build.log; from nothing 1387 ninja steps, see docs/sanitizers.md)"
	PATH=/usr/lib/ccache:$PATH ninja_progress "$HOME_ASAN/build.log" "qemu (asan)" \
		-C "$BUILD" -j "${RNIC_ASAN_JOBS:-$(nproc)}" qemu-system-x86_64 ||
		{ tail -40 "$HOME_ASAN/build.log" >&2; die "sanitized qemu build failed; see $HOME_ASAN/build.log"; }
	devs=$(ASAN_OPTIONS=detect_leaks=0 "$BIN" -device help 2>&1)
	for d in $WANT_DEVICES; do
		grep -q "$d" <<<"$devs" || die "the sanitized qemu does not list the device $d"
	done
	step "sanitized qemu built in $((SECONDS - t0)) s"
}

# A second QEMU build must not slow down everything else on the host.
renice -n 10 -p $$ >/dev/null 2>&1 || true
mkdir -p "$HOME_ASAN"
want=$(inputs_hash)
if [ -x "$BIN" ] && stamp_matches "$HOME_ASAN/build.stamp" "$want"; then
	ok "$BIN (up to date)"
	exit 0
fi
qemu_unpack "$SRC"
qemu_graft "$SRC"
configure
build
stamp_write "$HOME_ASAN/build.stamp" "$want"
ok "$BIN"
