#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Run the kernel's checkpatch.pl --strict over the driver sources.  The
# script comes from the cached linux-source-6.12 package (extracted once
# into $RNIC_CACHE/src/checkpatch/, never into the repo).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${RNIC_CACHE:-$HOME/.cache/rnic}
dest=$cache/src/checkpatch
cp=$dest/scripts/checkpatch.pl
if [ ! -f "$cp" ]; then
	deb=$(ls "$cache"/downloads/kernel/linux-source-6.12_*_all.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { echo "checkpatch: no linux-source-6.12 .deb in $cache/downloads/kernel" >&2; exit 2; }
	mkdir -p "$dest"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO --wildcards './usr/src/linux-source-6.12.tar.xz' |
		tar -xJ -C "$dest" --strip-components=1 \
			linux-source-6.12/scripts/checkpatch.pl \
			linux-source-6.12/scripts/spelling.txt \
			linux-source-6.12/scripts/const_structs.checkpatch
fi
cd "$here"
perl "$cp" --strict --no-tree --show-types --terse -f -- \
	*.c *.h Kbuild "$@"
