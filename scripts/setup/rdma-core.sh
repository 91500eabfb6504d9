#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rdma-core 56.1 from Debian trixie's source (orig tarball, checksum from apt's
# signed index), with provider/ grafted as providers/rnic when it exists, built
# into a staging prefix in the cache that guests use over 9p.
set -euo pipefail
. "$(dirname "$0")/common.sh"

DL=$RNIC_CACHE/downloads/rdma-core
VER=${RDMA_CORE_VERSION%-*}
SRC=$RNIC_CACHE/src/rdma-core-$VER
BUILD=$RNIC_CACHE/build/rdma-core
STAGE=$RNIC_CACHE/rdma-core/stage

fetch() {
	local line url name sum
	mkdir -p "$DL"
	[ -f "$DL/rdma-core_$VER.orig.tar.gz" ] && return
	need_download "the rdma-core $VER source"
	step "downloading rdma-core $VER source ($RDMA_CORE_SUITE)"
	# The .dsc is missing from the archive, so apt-get source fails: fetch the
	# orig tarball by the URI and SHA256 apt knows from the signed Sources index.
	line=$(apt-get source --print-uris "rdma-core=$RDMA_CORE_VERSION" 2>/dev/null | grep "orig.tar") ||
		die "apt knows no rdma-core $RDMA_CORE_VERSION source (deb-src $RDMA_CORE_SUITE missing?)"
	url=$(echo "$line" | awk '{print $1}' | tr -d "'")
	name=$(echo "$line" | awk '{print $2}')
	sum=$(echo "$line" | awk '{print $4}' | sed 's/^SHA256://')
	curl -fsSL -o "$DL/$name.part" "$url" || die "download of $url failed"
	echo "$sum  $DL/$name.part" | sha256sum -c --quiet - || die "checksum mismatch for $name"
	mv "$DL/$name.part" "$DL/$name"
}

unpack() {
	[ -f "$SRC/.rnic-unpacked" ] && return
	step "unpacking rdma-core $VER"
	rm -rf "$SRC"
	mkdir -p "$SRC"
	tar -xzf "$DL/rdma-core_$VER.orig.tar.gz" -C "$SRC" --strip-components=1
	touch "$SRC/.rnic-unpacked"
}

# provider/ becomes providers/rnic (copied only where content differs).
graft() {
	local dst=$SRC/providers/rnic f rel
	[ -f "$RNIC_TOP/provider/CMakeLists.txt" ] || return 0
	while IFS= read -r -d '' f; do
		rel=${f#"$RNIC_TOP/provider/"}
		sync_file "$f" "$dst/$rel"
	done < <(find "$RNIC_TOP/provider" -type f -print0)
	while IFS= read -r -d '' f; do
		sync_file "$f" "$dst/include/rnic/${f##*/}"
	done < <(find "$RNIC_TOP/include/rnic" -type f -name '*.h' -print0)
	grep -q 'add_subdirectory(providers/rnic)' "$SRC/CMakeLists.txt" ||
		sed -i 's|^add_subdirectory(providers/siw)|add_subdirectory(providers/siw)\nadd_subdirectory(providers/rnic)|' \
			"$SRC/CMakeLists.txt"
	grep -q 'add_subdirectory(providers/rnic)' "$SRC/CMakeLists.txt" || die "could not graft providers/rnic"
}

build() {
	local want="rdma-core=$RDMA_CORE_VERSION cfg=3"
	if [ ! -f "$BUILD/build.ninja" ] || ! stamp_matches "$RNIC_CACHE/stamps/rdma-core-configure" "$want"; then
		rm -rf "$BUILD"
		step "configuring rdma-core (staging prefix $STAGE)"
		mkdir -p "$BUILD"
		(cd "$BUILD" && cmake -GNinja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DCMAKE_C_COMPILER_LAUNCHER=ccache -DNO_MAN_PAGES=1 \
			-DPYTHON_EXECUTABLE=/usr/bin/python3 \
			-DCMAKE_INSTALL_PYTHON_ARCH_LIB="$STAGE/lib/python3/dist-packages" \
			-DCMAKE_INSTALL_PREFIX="$STAGE" "$SRC" >"$BUILD.configure.log" 2>&1) ||
			die "rdma-core cmake failed; see $BUILD.configure.log"
		stamp_write "$RNIC_CACHE/stamps/rdma-core-configure" "$want"
	fi
	step "building rdma-core into $STAGE"
	ninja_progress "$BUILD.build.log" rdma-core -C "$BUILD" install ||
		{ tail -30 "$BUILD.build.log" >&2; die "rdma-core build failed; see $BUILD.build.log"; }
	ok "rdma-core $VER staged ($(ls "$STAGE"/lib/libibverbs/ 2>/dev/null | wc -l) provider libraries)"
}

fetch
unpack
graft
build
