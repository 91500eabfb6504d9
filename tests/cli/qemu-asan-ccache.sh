#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qemu-asan.sh's build costs a link only if ccache gives it qemu.sh's objects:
# a compile with -g and absolute include paths under the cache, run in the
# sanitized build's folder, must hit what the same compile in the shared
# build's folder stored, with qemu-source.sh's ccache settings (and miss
# without them, so the check can tell). Layout as the two scripts use it.
#   qemu-asan-ccache.sh SETUP-DIR
set -euo pipefail
setup=$(cd "${1:?usage: qemu-asan-ccache.sh SETUP-DIR}" && pwd)
work=$(mktemp -d /tmp/rnic-asan-ccache-XXXXXX)
trap 'rm -rf "$work"' EXIT
export RNIC_CACHE=$work/cache
# shellcheck source=/dev/null
. "$setup/common.sh"
# shellcheck source=/dev/null
. "$setup/qemu-source.sh"
v=qemu-$QEMU_SRC_VERSION
for root in "$RNIC_CACHE" "$RNIC_CACHE/qemu-asan"; do
	mkdir -p "$root/src/$v/include" "$root/build/qemu"
	printf '#include "h.h"\n#include "config-host.h"\nint f(void) { return H + G; }\n' >"$root/src/$v/f.c"
	echo '#define H 3' >"$root/src/$v/include/h.h"
	echo '#define G 1' >"$root/build/qemu/config-host.h"
done
compile() { # compile ROOT CCACHE-DIR: as meson writes it, from ROOT/build/qemu
	(cd "$1/build/qemu" && CCACHE_DIR=$2 /usr/lib/ccache/cc -g -O2 -I. -iquote "$1/src/$v/include" \
		-MD -MQ f.o -MF f.o.d -o f.o -c "../../src/$v/f.c")
}
hits() { CCACHE_DIR=$1 ccache --print-stats | awk '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { n += $2 } END { print n + 0 }'; }
compile "$RNIC_CACHE" "$work/cc"
compile "$RNIC_CACHE/qemu-asan" "$work/cc"
with=$(hits "$work/cc")
unset CCACHE_BASEDIR CCACHE_NOHASHDIR
compile "$RNIC_CACHE" "$work/cc0"
compile "$RNIC_CACHE/qemu-asan" "$work/cc0"
without=$(hits "$work/cc0")
echo "the sanitized build's compile: $with hit(s) with qemu-source.sh's settings, $without with ccache's defaults"
[ "$with" = 1 ] && [ "$without" = 0 ]
