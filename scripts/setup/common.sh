# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers and pinned versions for rnic's setup scripts (sourced).
RNIC_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RNIC_CACHE=${RNIC_CACHE:-$HOME/.cache/rnic}
export RNIC_CACHE
export CCACHE_DIR=${CCACHE_DIR:-$RNIC_CACHE/ccache}

# Pinned upstreams (one place; a bump here rebuilds what depends on it).
QEMU_SRC_VERSION=10.0.13+ds-0+deb13u1
QEMU_SUITE=trixie
RDMA_CORE_VERSION=56.1-1
RDMA_CORE_SUITE=trixie
KERNEL_META_IMAGE=linux-image-6.12-amd64
KERNEL_META_HEADERS=linux-headers-6.12-amd64
KERNEL_META_SOURCE=linux-source-6.12
KERNEL_SUITE=bookworm-security
KERNEL_61_HEADERS=linux-headers-amd64

step() { printf '[rnic setup] %s\n' "$*"; }
ok() { printf '[rnic setup] ok: %s\n' "$*"; }
die() { printf '[rnic setup] error: %s\n' "$*" >&2; exit 1; }

# A stamp records the inputs a build used; the build reruns when they change.
stamp_matches() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
stamp_write() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" >"$1"; }

# Copy a file only when its content differs, so incremental builds (ninja, Kbuild)
# rebuild just what changed in a graft or mirror.
sync_file() {
	if ! cmp -s "$1" "$2"; then
		mkdir -p "$(dirname "$2")"
		cp "$1" "$2"
	fi
}

# One build of a kind at a time per cache: concurrent runs (two clones, CI and a
# developer) would otherwise race in the same build trees.
mkdir -p "$RNIC_CACHE/locks"
exec 9>"$RNIC_CACHE/locks/$(basename "$0" .sh).lock"
flock 9
