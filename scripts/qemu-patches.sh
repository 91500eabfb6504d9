#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rnic as a patch series for upstream QEMU 10.0.x, and the proof that it applies
# to a clean QEMU and builds with and without libisal.
#   scripts/qemu-patches.sh export DIR   write DIR/0001..0003-*.patch (git am-able)
#   scripts/qemu-patches.sh check        apply the series to Debian's QEMU source
#                                        (dpkg-source -x, no hw/rnic) and build
#                                        hw/rnic with and without libisal (--link:
#                                        and qemu-system-x86_64)
set -euo pipefail
. "$(dirname "$0")/setup/common.sh"

ORIG=$RNIC_CACHE/downloads/qemu/qemu_${QEMU_SRC_VERSION%%-*}.orig.tar.xz
DSC=$RNIC_CACHE/downloads/qemu/qemu_$QEMU_SRC_VERSION.dsc
SCRATCH=$RNIC_CACHE/scratch-qemu-patches
# The upstream files the series edits (beside the new ones it adds).
EDITED="meson.build hw/meson.build hw/Kconfig docs/system/device-emulation.rst"
say() { printf '[qemu-patches] %s\n' "$*"; }

need_orig() {
	if [ ! -f "$ORIG" ] || [ ! -f "$DSC" ]; then
		die "no QEMU source package at $DSC: run ./rnic setup first"
	fi
}

# The rnic checkout's git identity (or "rnic developers") and the date of the
# last commit that touched what the series exports: the same files give the
# same patches, whatever else was committed since.
git_env() {
	local date
	date=$(git -C "$RNIC_TOP" log -1 --format=%cI HEAD -- hw-rnic include/rnic/hw.h docs/qemu-patches)
	GIT_AUTHOR_NAME=$(git -C "$RNIC_TOP" config user.name || echo "rnic developers")
	GIT_AUTHOR_EMAIL=$(git -C "$RNIC_TOP" config user.email || echo "rnic@example.invalid")
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL
	export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
	export GIT_AUTHOR_DATE="$date" GIT_COMMITTER_DATE="$date"
}

# hw/rnic/meson.build for QEMU: hw-rnic/meson.build with the engine file list
# written out (in the rnic tree it is read from engine/meson.build, which is
# rnic's own build and not part of the series).
write_qemu_meson() {
	/usr/bin/python3 - "$RNIC_TOP/hw-rnic/meson.build" "$RNIC_TOP/hw-rnic/engine/meson.build" "$1" <<'PY'
import re, sys
src, eng, out = sys.argv[1:]
text = open(src).read()
files = [t for t in open(eng).read().split("'")
         if t.endswith('.c') and ' ' not in t and '\n' not in t]
m = re.search(r"^# Grafted into QEMU.*?^endforeach\n", text, re.S | re.M)
if not m or not files:
    sys.exit('hw-rnic/meson.build: the engine list block changed; update qemu-patches.sh')
block = ("# The rnic device: the QEMU adapter (rnic.c) and its protocol engine (engine/).\n"
         "rnic_engine_files = files(\n" +
         "".join("  'engine/%s',\n" % f for f in files) + ")\n")
text = text[:m.start()] + block + text[m.end():]
text = text.replace("files(rnic_engine_files)", "rnic_engine_files")
open(out, 'w').write(text)
PY
}

export_series() {
	local out=$1 repo=$SCRATCH/export f
	need_orig
	rm -rf "$repo"
	mkdir -p "$repo" "$out"
	# Base: the upstream files the series edits, from the orig tarball.
	# shellcheck disable=SC2046,SC2086
	tar --no-same-owner -xJf "$ORIG" -C "$repo" --strip-components=1 $(printf "qemu-${QEMU_SRC_VERSION%%+*}/%s " $EDITED)
	git_env
	git -C "$repo" init -q
	git -C "$repo" add -A
	git -C "$repo" commit -q -m "QEMU ${QEMU_SRC_VERSION%%+*} (orig tarball)"

	# 1: the engine and the hardware interface header it implements.
	mkdir -p "$repo/hw/rnic/engine" "$repo/hw/rnic/include/rnic"
	for f in "$RNIC_TOP"/hw-rnic/engine/*/*.[ch]; do
		mkdir -p "$repo/hw/rnic/engine/$(basename "$(dirname "$f")")"
		cp "$f" "$repo/hw/rnic/engine/$(basename "$(dirname "$f")")/"
	done
	cp "$RNIC_TOP/include/rnic/hw.h" "$repo/hw/rnic/include/rnic/"
	git -C "$repo" add -A
	git -C "$repo" commit -q -F - <<'MSG'
hw/rnic: add the rnic iWARP RDMA engine

The protocol engine of the rnic emulated iWARP RNIC, as plain C with no
QEMU headers, threads or clocks (sans-I/O): the device core (registers,
admin queue, event queues, L2 rings, receive classifier), an offloaded
TCP, MPA framing with markers and CRC32c, DDP placement and RDMAP, the
iWARP connection manager and the RDMA resources (PD, CQ, SRQ, QP, MR).

include/rnic/hw.h is the device's programming interface, shared with
the rnic Linux driver and rdma-core provider. The engine is built into
QEMU by the next patch.

CRC32c comes from ISA-L (libisal) when it is found, otherwise from
QEMU's crc32c() (RNE_CRC32C_QEMU); hw.h's fixed-width types come from
plain C (RNIC_HW_PORTABLE_TYPES), so no Linux header or host is needed.
MSG

	# 2: the QEMU adapter, Kconfig and the three meson/Kconfig hooks.
	for f in rnic.c rnic.h rnic-migration.c trace.h trace-events Kconfig; do cp "$RNIC_TOP/hw-rnic/$f" "$repo/hw/rnic/"; done
	write_qemu_meson "$repo/hw/rnic/meson.build"
	echo "subdir('rnic')" >>"$repo/hw/meson.build"
	echo 'source rnic/Kconfig' >>"$repo/hw/Kconfig"
	sed -i "s|^\( *\)'hw/rtc',|\1'hw/rnic',\n\1'hw/rtc',|" "$repo/meson.build"
	grep -q "'hw/rnic'" "$repo/meson.build" || die "could not add hw/rnic to trace_events_subdirs"
	git -C "$repo" add -A
	git -C "$repo" commit -q -F - <<'MSG'
hw/rnic: add the rnic PCI device

-device rnic,netdev=ID: a PCI Ethernet controller (1af4:10f5, from the
experimental range of docs/specs/pci-ids.rst) whose RDMA engine (the
previous patch) terminates iWARP connections itself. rnic.c is the thin
adapter: BARs (registers, doorbell pages, MSI-X), guest memory through
the DMA API, frames through the netdev, a bottom half and a timer for
the engine's work, tracing (rnic_*). The device is not migratable.

CONFIG_RNIC is on by default where PCI devices are (PCI and
MSI_NONBROKEN). hw/meson.build, hw/Kconfig and the trace subdirectories
in meson.build gain one line each.
MSG

	# 3: the device page.
	mkdir -p "$repo/docs/system/devices"
	cp "$RNIC_TOP/docs/qemu-patches/rnic.rst" "$repo/docs/system/devices/rnic.rst"
	sed -i 's|^\( *\)devices/nvme.rst$|&\n\1devices/rnic.rst|' "$repo/docs/system/device-emulation.rst"
	grep -q 'devices/rnic.rst' "$repo/docs/system/device-emulation.rst" ||
		die "could not add devices/rnic.rst to docs/system/device-emulation.rst"
	git -C "$repo" add -A
	git -C "$repo" commit -q -F - <<'MSG'
docs/system: document the rnic device

A device page (docs/system/devices/rnic.rst) in the device emulation
toctree: what rnic is, its PCI function, a two-guest command line over
-netdev stream, and its limitations (IPv4 only, no VLAN, RC only, not
migratable). The guest software and the full manual live in the rnic
repository (docs/using-rnic.md).
MSG

	rm -f "$out"/000[0-9]-*.patch
	git -C "$repo" format-patch -q --zero-commit --no-signature -o "$out" HEAD~3
	say "wrote $(cd "$out" && echo 000[0-9]-*.patch) to $out"
}

# Configure a minimal x86_64-softmmu QEMU (as scripts/setup/qemu.sh does) in
# $2 from source $1, and compile every hw/rnic object (--link: and link
# qemu-system-x86_64). $3 = isal|noisal; noisal hides libisal.pc from pkg-config.
build_variant() {
	local src=$1 bld=$2 variant=$3 t0 pcdir objs n d f
	local -a env=("PATH=/usr/lib/ccache:$PATH" CCACHE_NOHASHDIR=1)
	if [ "$variant" = noisal ]; then
		pcdir=$SCRATCH/pkgconfig-noisal
		rm -rf "$pcdir"
		mkdir -p "$pcdir"
		for d in $(pkg-config --variable pc_path pkg-config | tr : ' '); do
			for f in "$d"/*.pc; do
				[ -e "$f" ] && [ "${f##*/}" != libisal.pc ] && [ ! -e "$pcdir/${f##*/}" ] &&
					ln -s "$f" "$pcdir/${f##*/}"
			done
		done
		env+=("PKG_CONFIG_LIBDIR=$pcdir")
	fi
	rm -rf "$bld"
	mkdir -p "$bld"
	t0=$SECONDS
	(cd "$bld" && env "${env[@]}" "$src/configure" \
		--python=/usr/bin/python3 --target-list=x86_64-softmmu \
		--without-default-features --enable-tcg --enable-kvm --enable-slirp \
		--enable-fdt=system --enable-pixman \
		--disable-docs --disable-werror --disable-download --disable-install-blobs \
		>"$bld.configure.log" 2>&1) || { tail -30 "$bld.configure.log" >&2; die "$variant: configure failed"; }
	say "$variant: configured in $((SECONDS - t0)) s ($(grep -h 'Run-time dependency libisal' "$bld/meson-logs/meson-log.txt" | tail -1))"
	case "$variant" in
	isal) grep -q 'Run-time dependency libisal found: YES' "$bld/meson-logs/meson-log.txt" ||
		die "isal: QEMU's meson did not find libisal (is libisal-dev installed?)" ;;
	noisal) grep -q 'Run-time dependency libisal found: NO' "$bld/meson-logs/meson-log.txt" ||
		die "noisal: libisal was still found" ;;
	esac
	objs=$(ninja -C "$bld" -t targets all | sed -n 's/^\([^:]*hw_rnic[^:]*\.o\): .*/\1/p' | sort -u)
	n=$(echo "$objs" | wc -l)
	[ "$n" -ge 30 ] || die "$variant: only $n hw/rnic objects in the build (CONFIG_RNIC off?)"
	t0=$SECONDS
	# shellcheck disable=SC2086
	env "${env[@]}" ninja -C "$bld" -j"$JOBS" $objs >"$bld.build.log" 2>&1 ||
		{ tail -40 "$bld.build.log" >&2; die "$variant: compiling hw/rnic failed; see $bld.build.log"; }
	say "$variant: compiled $n hw/rnic objects in $((SECONDS - t0)) s"
	! grep -E '(hw/rnic|hw_rnic)[^ ]*: warning:|^\.\./[^ ]*hw/rnic/[^ ]*warning:' "$bld.build.log" ||
		die "$variant: the hw/rnic build has warnings (above)"
	# The CRC32c path the build chose, from the compile command of crc32c.c.
	f=$(grep -o '"command": "[^"]*hw/rnic/engine/wire/crc32c.c"' "$bld/compile_commands.json")
	case "$variant" in
	isal) ! echo "$f" | grep -q RNE_CRC32C_QEMU || die "isal: crc32c.c built for QEMU's crc32c()" ;;
	noisal) echo "$f" | grep -q RNE_CRC32C_QEMU || die "noisal: crc32c.c not built for QEMU's crc32c()" ;;
	esac
	echo "$f" | grep -q RNIC_HW_PORTABLE_TYPES || die "$variant: hw.h not built with portable types"
	if [ "$LINK" = 1 ]; then
		t0=$SECONDS
		env "${env[@]}" ninja -C "$bld" -j2 qemu-system-x86_64 >>"$bld.build.log" 2>&1 ||
			{ tail -40 "$bld.build.log" >&2; die "$variant: linking qemu-system-x86_64 failed"; }
		"$bld/qemu-system-x86_64" -device help | grep -q '"rnic"' || die "$variant: no rnic device"
		case "$variant" in
		isal) nm "$bld/qemu-system-x86_64" | grep -q crc32_iscsi || die "isal: crc32_iscsi not linked" ;;
		noisal) ! nm "$bld/qemu-system-x86_64" | grep -q crc32_iscsi || die "noisal: crc32_iscsi linked" ;;
		esac
		say "$variant: linked qemu-system-x86_64 (lists -device rnic) in $((SECONDS - t0)) s"
	fi
}

# clean_source DIR: a clean QEMU in DIR, as a git tree for git am: Debian's
# source package unpacked with dpkg-source (upstream plus Debian's patches,
# e.g. disable-pycotap, without which the orig tarball cannot configure
# offline; no hw/rnic) and committed, tagged "clean". Unpacking and committing
# its ~10,000 files is most of the time before a variant's configure, so the
# tree is kept for the next series and brought back to that commit: the last
# series' commits and files undone (reset --hard, clean -fd), checked by
# git status; the files QEMU's .gitignore names were never touched.
clean_source() {
	local src=$1 stamp=$1.clean
	if [ "$(cat "$stamp" 2>/dev/null)" = "$QEMU_SRC_VERSION" ] &&
		git -C "$src" rev-parse -q --verify clean >/dev/null; then
		git -C "$src" am --abort >/dev/null 2>&1 || true
		if git -C "$src" reset -q --hard clean && git -C "$src" clean -q -fd &&
			[ -z "$(git -C "$src" status --porcelain)" ] && [ ! -e "$src/hw/rnic" ]; then
			say "QEMU $QEMU_SRC_VERSION source reset to its clean commit"
			return
		fi
		say "the kept QEMU source did not come back clean: unpacking it again"
	fi
	rm -rf "$SCRATCH/src"
	mkdir -p "$SCRATCH/src"
	dpkg-source --no-check -x "$DSC" "$src" >/dev/null || die "dpkg-source failed to unpack $DSC"
	[ ! -e "$src/hw/rnic" ] || die "the QEMU source already has hw/rnic"
	git -C "$src" init -q
	git -C "$src" add -A
	git -C "$src" commit -q -m "QEMU $QEMU_SRC_VERSION (Debian source package)"
	git -C "$src" tag clean
	echo "$QEMU_SRC_VERSION" >"$stamp"
}

check_series() {
	local series=$SCRATCH/series ver=${QEMU_SRC_VERSION%%+*} src key stamp t0 v
	need_orig
	export_series "$series" >/dev/null
	key="qemu=$QEMU_SRC_VERSION link=$LINK series=$(cat "$series"/*.patch "$0" | sha256sum | cut -c1-16)"
	stamp=$RNIC_CACHE/stamps/qemu-patches-check
	if [ "$FORCE" = 0 ] && stamp_matches "$stamp" "$key"; then
		say "ok: this series was proved to apply and build ($key; $(tr '\n' ' ' <"$stamp.log" 2>/dev/null))"
		return
	fi
	# The scratch tree and builds are replaced: one QEMU build at a time.
	exec 8>/tmp/rnic-qemu.lock
	say "waiting for /tmp/rnic-qemu.lock (one QEMU build at a time on this host)"
	flock 8
	src=$SCRATCH/src/qemu-$QEMU_SRC_VERSION
	t0=$SECONDS
	git_env
	clean_source "$src"
	git -C "$src" am -q "$series"/*.patch || die "git am failed on QEMU $ver"
	say "applied $(ls "$series"/*.patch | wc -l) patches to QEMU $ver with git am in $((SECONDS - t0)) s"
	: >"$stamp.log.new"
	if [ "$LINK" = 1 ]; then
		for v in isal noisal; do
			t0=$SECONDS
			build_variant "$src" "$SCRATCH/build/qemu-$v" "$v"
			echo "$v $((SECONDS - t0)) s" >>"$stamp.log.new"
		done
	else
		# Both variants at once, one ninja job each: most of a variant's time
		# is QEMU's configure (meson, one core) and the hw/rnic objects come
		# from ccache, so the second core would otherwise sit idle.
		local -a pids=()
		mkdir -p "$SCRATCH/build"
		for v in isal noisal; do
			(
				t0=$SECONDS
				build_variant "$src" "$SCRATCH/build/qemu-$v" "$v"
				echo "$v $((SECONDS - t0)) s" >"$stamp.log.$v"
			) >"$SCRATCH/build/qemu-$v.out" 2>&1 &
			pids+=($!)
		done
		t0=0
		for v in 0 1; do wait "${pids[$v]}" || t0=1; done
		for v in isal noisal; do
			cat "$SCRATCH/build/qemu-$v.out"
			cat "$stamp.log.$v" >>"$stamp.log.new" 2>/dev/null
			rm -f "$stamp.log.$v"
		done
		[ "$t0" = 0 ] || die "a variant failed (above)"
	fi
	flock -u 8
	mv "$stamp.log.new" "$stamp.log"
	stamp_write "$stamp" "$key"
	say "ok: the series applies to QEMU $ver and builds with and without libisal"
}

LINK=0 FORCE=0
# ninja jobs per variant: 1 when both variants build at once (check without --link)
JOBS=2
cmd=${1:-}
shift || true
while [ $# -gt 0 ]; do
	case "$1" in
	--link) LINK=1 ;;
	--force) FORCE=1 ;;
	*) break ;;
	esac
	shift
done
case "$cmd" in
export)
	[ $# -eq 1 ] || die "usage: ./rnic export-qemu-patches DIR"
	export_series "$1"
	;;
check)
	[ "$LINK" = 1 ] || JOBS=1
	check_series
	;;
*) sed -n '3,9p' "$0" | sed 's/^# \{0,1\}//'; [ "$cmd" = help ] ;;
esac
