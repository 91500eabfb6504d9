# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# QEMU's source for rnic's QEMU builds (sourced after common.sh): Debian's trixie
# source package unpacked with its patches, and hw-rnic grafted in as hw/rnic.
# qemu.sh (the shared build) and qemu-asan.sh (the sanitized one) each graft
# into their own copy of the tree.

QEMU_DL=$RNIC_CACHE/downloads/qemu

# configure's arguments after --python: the same for both builds, so that
# qemu-asan.sh's objects outside hw/rnic are qemu.sh's, from ccache.
# shellcheck disable=SC2034 # used by the scripts that source this one
QEMU_CONFIGURE_ARGS=(--target-list=x86_64-softmmu --without-default-features
	--enable-tcg --enable-kvm --enable-slirp --enable-virtfs --enable-attr --enable-cap-ng
	--enable-fdt=system --enable-pixman --enable-tools
	--disable-docs --disable-werror --disable-download --disable-install-blobs)
# shellcheck disable=SC2034
QEMU_CONFIGURE_STAMP="qemu=$QEMU_SRC_VERSION cfg=6"

# ccache keys that do not depend on where a build lives: paths under the cache
# are hashed relative to the build directory (both builds sit two levels below
# their source's parent, see qemu-asan.sh) and the working directory is not
# hashed (it only names the build folder in the debug info).
export CCACHE_BASEDIR=$RNIC_CACHE CCACHE_NOHASHDIR=1

# qemu_unpack SRC: unpack the source package into SRC once (downloads it first
# if the cache does not hold it).
qemu_unpack() {
	local src=$1
	[ ! -f "$src/.rnic-unpacked" ] || return 0
	mkdir -p "$QEMU_DL" "$(dirname "$src")"
	if ! ls "$QEMU_DL"/qemu_*.dsc >/dev/null 2>&1; then
		need_download "the qemu $QEMU_SRC_VERSION source"
		step "downloading qemu $QEMU_SRC_VERSION source ($QEMU_SUITE)"
		(cd "$QEMU_DL" && apt-get source --download-only "qemu=1:$QEMU_SRC_VERSION" >/dev/null 2>&1) ||
			die "cannot download qemu source 1:$QEMU_SRC_VERSION (is deb-src for $QEMU_SUITE configured?)"
	fi
	step "unpacking qemu with its Debian patches into $src"
	rm -rf "$src"
	dpkg-source --no-check -x "$QEMU_DL"/qemu_*.dsc "$src" >/dev/null ||
		die "dpkg-source failed to unpack qemu"
	touch "$src/.rnic-unpacked"
}

# The files of this tree that become hw/rnic (NUL-separated, sorted).
qemu_graft_files() {
	{
		find "$RNIC_TOP/hw-rnic" -type f \( -name '*.c' -o -name '*.h' -o -name 'meson.build' \
			-o -name 'Kconfig' -o -name 'trace-events' \) -not -path '*/tests/*' -print0
		find "$RNIC_TOP/include/rnic" -type f -name '*.h' -print0
	} | sort -z
}

# qemu_graft SRC: hw-rnic/ (adapter + engine) and include/rnic/ become hw/rnic
# in SRC, files that left the repo are removed, plus three one-line edits.
qemu_graft() {
	local src=$1 dst=$1/hw/rnic f rel
	while IFS= read -r -d '' f; do
		case "$f" in
		"$RNIC_TOP/include/"*) rel=include/${f#"$RNIC_TOP/include/"} ;;
		*) rel=${f#"$RNIC_TOP/hw-rnic/"} ;;
		esac
		sync_file "$f" "$dst/$rel"
	done < <(qemu_graft_files)
	while IFS= read -r -d '' f; do
		rel=${f#"$dst/"}
		case "$rel" in
		include/*) [ -f "$RNIC_TOP/include/${rel#include/}" ] || rm -f "$f" ;;
		*) [ -f "$RNIC_TOP/hw-rnic/$rel" ] || rm -f "$f" ;;
		esac
	done < <(find "$dst" -type f -print0 2>/dev/null)
	grep -q "subdir('rnic')" "$src/hw/meson.build" || echo "subdir('rnic')" >>"$src/hw/meson.build"
	grep -q 'source rnic/Kconfig' "$src/hw/Kconfig" || echo 'source rnic/Kconfig' >>"$src/hw/Kconfig"
	if ! grep -q "'hw/rnic'" "$src/meson.build"; then
		sed -i "s|^\( *\)'hw/rtc',|\1'hw/rnic',\n\1'hw/rtc',|" "$src/meson.build"
		grep -q "'hw/rnic'" "$src/meson.build" || die "could not add hw/rnic to trace_events_subdirs"
	fi
}
