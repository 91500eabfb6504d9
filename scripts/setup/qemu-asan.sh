#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A second qemu-system-x86_64 whose rnic device (hw/rnic: adapter + engine) is
# compiled with AddressSanitizer and UndefinedBehaviorSanitizer and linked with
# their runtimes, for suite asan (tests/asan/, docs/sanitizers.md).
# Configured exactly like qemu.sh's build, with the same ccache; only its C
# compiler differs (qemu-asan-cc): it instruments hw/rnic's files and passes
# every other compile through unchanged, so after qemu.sh those are ccache hits
# and this build costs the device's files and a link.
# Its own copy of the source under $RNIC_CACHE/qemu-asan/ (never a half-grafted
# shared tree), laid out like the shared one (src/qemu-V and build/qemu two
# levels below a common parent) so the compile commands match byte for byte.
# Rebuilt only when the grafted files or these scripts change (stamp).
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/qemu-source.sh"

HOME_ASAN=$RNIC_CACHE/qemu-asan
SRC=$HOME_ASAN/src/qemu-$QEMU_SRC_VERSION
BUILD=$HOME_ASAN/build/qemu
BIN=$BUILD/qemu-system-x86_64
CCDIR=$HOME_ASAN/bin

# The build's inputs: QEMU's version, these scripts, every grafted file.
inputs_hash() {
	{
		echo "qemu=$QEMU_SRC_VERSION"
		cat "$0" "$(dirname "$0")/qemu-source.sh" "$(dirname "$0")/qemu-asan-cc"
		qemu_graft_files | xargs -0 sha256sum | sed "s|  $RNIC_TOP/| |"
	} | sha256sum | cut -d' ' -f1
}

configure() {
	local want
	want="$QEMU_CONFIGURE_STAMP cc=$(sha256sum <"$CCDIR/cc" | cut -c1-16)"
	if [ -f "$BUILD/build.ninja" ] && stamp_matches "$HOME_ASAN/configure.stamp" "$want"; then
		return
	fi
	step "configuring the sanitized qemu (qemu.sh's configuration, hw/rnic instrumented)"
	rm -rf "$BUILD"
	mkdir -p "$BUILD"
	(cd "$BUILD" && PATH=$CCDIR:/usr/lib/ccache:$PATH "$SRC/configure" \
		--python=/usr/bin/python3 "${QEMU_CONFIGURE_ARGS[@]}" \
		>"$HOME_ASAN/configure.log" 2>&1) ||
		die "sanitized qemu configure failed; see $HOME_ASAN/configure.log"
	stamp_write "$HOME_ASAN/configure.stamp" "$want"
}

build() {
	local t0=$SECONDS
	step "building the sanitized qemu-system-x86_64 (log $HOME_ASAN/build.log)"
	PATH=$CCDIR:/usr/lib/ccache:$PATH ninja_progress "$HOME_ASAN/build.log" "qemu (asan)" \
		-C "$BUILD" -j "${RNIC_ASAN_JOBS:-$(nproc)}" qemu-system-x86_64 ||
		{ tail -40 "$HOME_ASAN/build.log" >&2; die "sanitized qemu build failed; see $HOME_ASAN/build.log"; }
	# The device's objects must carry ASan's checks, the binary its runtime.
	nm "$BUILD"/libcommon.a.p/hw_rnic_rnic.c.o | grep -q __asan_report ||
		die "hw/rnic/rnic.c was not compiled with -fsanitize=address; see $HOME_ASAN/build.log"
	ASAN_OPTIONS=detect_leaks=0 "$BIN" -device help 2>&1 | grep -q '"rnic"' ||
		die "the sanitized qemu does not list the rnic device"
	step "sanitized qemu built in $((SECONDS - t0)) s"
}

mkdir -p "$CCDIR"
sync_file "$(dirname "$0")/qemu-asan-cc" "$CCDIR/cc"
chmod +x "$CCDIR/cc"
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
