#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Make apt know the suites rnic needs and install every host package it uses.
# Adds: deb-src for bookworm/bookworm-security/trixie, deb for bookworm-backports
# (pinned low so only what we name comes from it). Never trixie binaries.
set -euo pipefail
. "$(dirname "$0")/common.sh"

SRC_LIST=/etc/apt/sources.list.d/rnic.sources
PIN_FILE=/etc/apt/preferences.d/rnic-backports

want_sources() {
	cat <<'EOS'
# Added by rnic's setup (scripts/setup/host-packages.sh).
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
}

# Build tools, guest userland (shared over 9p), RDMA tools the guests run
# (NFS server and client, iSCSI initiator and fio for tests/vm/guest/ulp-pair.sh);
# dkms and mmdebstrap for the guest kit and the standalone guest images;
# universal-ctags for the unit suite's check of names across rooms.
PACKAGES=(
	build-essential pkg-config ccache ninja-build cmake python3 python3-venv
	git curl dpkg-dev quilt flex bison bc kmod cpio xz-utils zstd gzip file
	libglib2.0-dev libfdt-dev libpixman-1-dev zlib1g-dev libslirp-dev
	libcap-ng-dev libattr1-dev libnl-3-dev libnl-route-3-dev libudev-dev
	libelf-dev libssl-dev libisal-dev
	busybox-static iproute2 iputils-ping netcat-openbsd iperf3 procps ethtool
	rdma-core ibverbs-utils rdmacm-utils perftest qperf
	seabios qemu-system-data ipxe-qemu
	tshark clang llvm libclang-rt-14-dev
	nvme-cli
	nfs-kernel-server open-iscsi fio
	sparse dwarves rsync cython3 python3-dev
	dkms mmdebstrap e2fsprogs
	universal-ctags
)

# Also install what RNIC_EXTRA_HOST_PACKAGES names (space-separated), e.g. for
# your own lab scripts.
read -r -a EXTRA <<<"${RNIC_EXTRA_HOST_PACKAGES:-}"
PACKAGES+=("${EXTRA[@]}")

need_root() { # need_root WHY
	[ "$(id -u)" = 0 ] ||
		die "$1 needs root (apt-get): run ./rnic setup as root once, or as root: apt-get install ${missing[*]:-meson}"
}

# The named packages that dpkg does not list as installed: one dpkg-query call,
# no root, no network.
missing_packages() {
	local -A have=()
	local p st
	while read -r p st; do
		[ "$st" = installed ] && have[$p]=1
	done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "$@" 2>/dev/null || true)
	for p in "$@"; do
		[ -n "${have[$p]:-}" ] || echo "$p"
	done
}

# A warm host (sources in place, every package installed) needs neither root
# nor the network: apt-get runs only when something is to be installed.
main() {
	local sources_ok=1 meson_ok=1
	preflight_host
	preflight_disk
	mapfile -t missing < <(missing_packages "${PACKAGES[@]}")
	cmp -s <(want_sources) "$SRC_LIST" 2>/dev/null && [ -f "$PIN_FILE" ] || sources_ok=0
	# meson >= 1.5 for QEMU 10.0 comes from bookworm-backports.
	dpkg --compare-versions "$(dpkg-query -W -f='${Version}' meson 2>/dev/null || echo 0)" ge 1.5 || meson_ok=0
	if [ $sources_ok = 1 ] && [ $meson_ok = 1 ] && [ ${#missing[@]} = 0 ]; then
		ok "host packages present (${#PACKAGES[@]} checked with dpkg-query; no apt-get needed)"
		return
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		step "missing host packages: ${missing[*]}"
	fi
	if [ $sources_ok = 0 ]; then
		need_root "adding rnic's apt sources ($SRC_LIST)"
		step "adding apt sources (deb-src bookworm/trixie, bookworm-backports)"
		want_sources >"$SRC_LIST"
		printf 'Package: *\nPin: release a=bookworm-backports\nPin-Priority: 100\n' >"$PIN_FILE"
	fi
	need_root "installing host packages"
	need_network "host packages"
	step "apt-get update"
	apt_updated
	if [ $meson_ok = 0 ]; then
		step "installing meson from bookworm-backports"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bookworm-backports meson \
			>/dev/null || die "cannot install meson >= 1.5 from bookworm-backports"
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		step "installing ${#missing[@]} host packages: ${missing[*]}"
		echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
			>/dev/null || die "apt-get install failed for: ${missing[*]}"
	fi
	ok "host packages present"
}
main "$@"
