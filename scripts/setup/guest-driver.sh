#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build guest-driver/ (and any test modules under tests/kmod/) against the
# extracted 6.12 headers for the lab, and compile it against the 6.1 headers as
# a compatibility check. Objects go to the cache, never into the repo.
set -euo pipefail
. "$(dirname "$0")/common.sh"

build_module() { # build_module SRC_DIR SERIES OUT_DIR
	local src=$1 series=$2 out=$3 f want
	local headers=$RNIC_CACHE/kernel/$series/headers
	[ -d "$headers" ] || die "no $series headers in the cache: run scripts/setup/kernel.sh"
	mkdir -p "$out"
	# Kbuild writes next to the sources: build in a mirror of them, laid out
	# as the DKMS package is (the shared headers in include/rnic/ beside them).
	for f in "$src"/*; do
		[ -f "$f" ] || continue
		sync_file "$f" "$out/${f##*/}"
	done
	[ -L "$out/include" ] && rm -f "$out/include"	# older mirrors had a symlink
	for f in "$RNIC_TOP"/include/rnic/*.h; do
		sync_file "$f" "$out/include/rnic/${f##*/}"
	done
	# A warm setup with nothing changed skips Kbuild (three runs, ~19 s
	# even when it rebuilds nothing): the stamp holds the sources, the
	# headers' kernel and symbols, and the compiler.
	want=$(module_inputs "$src" "$series")
	if ls "$out"/*.ko >/dev/null 2>&1 && stamp_matches "$out/.stamp" "$want"; then
		return 0
	fi
	rm -f "$out/.stamp"
	make -C "$headers" M="$out" W=1 modules >"$out/build.log" 2>&1 ||
		{ grep -E 'error|warning' "$out/build.log" | head -30 >&2
		  die "$(basename "$src") does not build against $series; see $out/build.log"; }
	if grep -q 'warning:' "$out/build.log"; then
		grep 'warning:' "$out/build.log" | head -20 >&2
		die "$(basename "$src") builds with warnings against $series; see $out/build.log"
	fi
	stamp_write "$out/.stamp" "$want"
}

# module_inputs SRC_DIR SERIES: what a module build depends on, one line each.
module_inputs() {
	local headers=$RNIC_CACHE/kernel/$2/headers
	(cd "$1" && find . -maxdepth 1 -type f -print0 | sort -z | xargs -0 sha256sum)
	(cd "$RNIC_TOP/include/rnic" && sha256sum ./*.h)
	cat "$RNIC_CACHE/kernel/$2/kver" 2>/dev/null
	sha256sum <"$headers/Module.symvers"
	"${CC:-gcc}" --version | head -1
}

[ -f "$RNIC_TOP/guest-driver/Kbuild" ] || exit 0
step "building guest-driver for 6.12 (lab) and 6.1 (compatibility)"
build_module "$RNIC_TOP/guest-driver" 6.12 "$RNIC_CACHE/build/guest-driver-6.12"
build_module "$RNIC_TOP/guest-driver" 6.1 "$RNIC_CACHE/build/guest-driver-6.1"
for d in "$RNIC_TOP"/tests/kmod/*/; do
	[ -f "$d/Kbuild" ] || continue
	build_module "${d%/}" 6.12 "$RNIC_CACHE/build/kmod-$(basename "$d")-6.12"
done
kos=""
for ko in "$RNIC_CACHE"/build/guest-driver-6.12/*.ko; do
	kos="$kos${ko##*/} "
done
ok "guest-driver: $kos"
