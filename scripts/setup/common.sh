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

# Run ninja ARGS, its whole output into LOG, and print a line with the elapsed
# time whenever another 10 % of its steps is done (from ninja's "[N/M]" status
# lines), for builds of 20 steps or more (a warm QEMU regenerates its version
# header and relinks: no progress to show). Returns ninja's exit status.
ninja_progress() { # ninja_progress LOG WHAT NINJA-ARGS...
	local log=$1 what=$2 t0=$SECONDS shown=0 line n m tenth
	shift 2
	mkdir -p "$(dirname "$log")"
	NINJA_STATUS='[%f/%t] ' ninja "$@" 2>&1 | while IFS= read -r line; do
		printf '%s\n' "$line"
		[[ $line =~ ^\[([0-9]+)/([0-9]+)\]\  ]] || continue
		n=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]}
		[ "$m" -ge 20 ] || continue
		tenth=$((n * 10 / m))
		if [ "$tenth" -gt "$shown" ]; then
			shown=$tenth
			printf '[rnic setup] %s: %d %% (%d/%d steps) after %d s\n' \
				"$what" $((tenth * 10)) "$n" "$m" $((SECONDS - t0)) >&3
		fi
	done 3>&1 >"$log"
	return "${PIPESTATUS[0]}"
}

# Preflight: what rnic's setup is made for. The messages say what is wrong and
# what would do instead.
preflight_host() {
	local rel=${RNIC_OS_RELEASE:-/etc/os-release} id version
	id=$(sed -n 's/^ID=//p' "$rel" 2>/dev/null | tr -d '"') || true
	version=$(sed -n 's/^VERSION_ID=//p' "$rel" 2>/dev/null | tr -d '"') || true
	[ "$id" = debian ] && [ "$version" = 12 ] ||
		die "this host runs ${id:-an unknown system} ${version}; rnic's setup is made for Debian 12 (bookworm): it uses bookworm's packages and bookworm-backports (a Debian 12 VM or container works)"
	[ "$(uname -m)" = x86_64 ] ||
		die "this host is $(uname -m); rnic's setup builds an x86_64 QEMU and x86_64 guest kernels and needs an x86_64 host"
}

# Free space in the cache: about RNIC_FRESH_GIB for a build from nothing, 1 GiB
# once QEMU is built (rebuilds, logs, lab runs).
RNIC_FRESH_GIB=${RNIC_FRESH_GIB:-6}
preflight_disk() {
	local need=$RNIC_FRESH_GIB free_kib why="a build from nothing"
	if [ -x "$RNIC_CACHE/build/qemu/qemu-system-x86_64" ]; then
		need=1 why="rebuilds and lab runs; about $RNIC_FRESH_GIB GiB from nothing"
	fi
	mkdir -p "$RNIC_CACHE"
	free_kib=$(df -Pk "$RNIC_CACHE" | awk 'NR == 2 { print $4 }')
	[ "$free_kib" -ge $((need * 1024 * 1024)) ] ||
		die "the cache $RNIC_CACHE has $((free_kib / 1024)) MiB free; setup needs about $need GiB there ($why): free space or point RNIC_CACHE at a bigger disk"
}

# The network, checked only when something is to be downloaded (curl is one of
# the host packages; before it is there, apt-get's own error has to do).
RNIC_ARCHIVE=${RNIC_ARCHIVE:-http://deb.debian.org/debian}
need_network() { # need_network WHAT
	[ -z "${RNIC_NET_CHECKED:-}" ] && command -v curl >/dev/null || return 0
	curl -fsS --max-time 20 -o /dev/null "$RNIC_ARCHIVE/dists/bookworm/InRelease" 2>/dev/null ||
		die "$1 must be downloaded from Debian's archive, but $RNIC_ARCHIVE does not answer (network, proxy?); everything else would come from the cache"
	export RNIC_NET_CHECKED=1
}

# Before a download from apt: the network, and apt's lists refreshed when
# neither our last apt-get update nor apt's package cache is younger than a day
# (as root; otherwise a note).
apt_updated() {
	apt-get update -qq || die "apt-get update failed: no access to Debian's archive?"
	stamp_write "$RNIC_CACHE/stamps/apt-update" "$(date -u +%F)"
}
need_download() { # need_download WHAT
	need_network "$1"
	[ -n "$(find "$RNIC_CACHE/stamps/apt-update" /var/cache/apt/pkgcache.bin -mmin -1440 -print -quit 2>/dev/null)" ] &&
		return
	if [ "$(id -u)" = 0 ]; then
		step "apt-get update (apt's lists may be older than a day; $1 is to be downloaded)"
		apt_updated
	else
		step "note: apt's lists may be older than a day; if downloading $1 fails, run apt-get update as root"
	fi
}

# One build of a kind at a time per cache: concurrent runs (two clones, CI and a
# developer) would otherwise race in the same build trees.
mkdir -p "$RNIC_CACHE/locks"
exec 9>"$RNIC_CACHE/locks/$(basename "$0" .sh).lock"
flock 9
