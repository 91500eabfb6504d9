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

# Build tools, guest userland (shared over 9p), RDMA tools the guests run.
PACKAGES=(
	build-essential pkg-config ccache ninja-build cmake python3 python3-venv
	git dpkg-dev quilt flex bison bc kmod cpio xz-utils zstd gzip file
	libglib2.0-dev libfdt-dev libpixman-1-dev zlib1g-dev libslirp-dev
	libcap-ng-dev libattr1-dev libnl-3-dev libnl-route-3-dev libudev-dev
	libelf-dev libssl-dev libisal-dev
	busybox-static iproute2 iputils-ping netcat-openbsd iperf3 procps ethtool
	rdma-core ibverbs-utils rdmacm-utils perftest qperf
	seabios qemu-system-data ipxe-qemu
	tshark clang llvm libclang-rt-14-dev
	nvme-cli
	sparse dwarves rsync cython3 python3-dev
)

need_root() {
	[ "$(id -u)" = 0 ] || die "host setup needs root (apt-get); run it as root or install: ${PACKAGES[*]}"
}

main() {
	local changed=0 missing=()
	if ! cmp -s <(want_sources) "$SRC_LIST" 2>/dev/null; then
		need_root
		step "adding apt sources (deb-src bookworm/trixie, bookworm-backports)"
		want_sources >"$SRC_LIST"
		changed=1
	fi
	if [ ! -f "$PIN_FILE" ]; then
		need_root
		printf 'Package: *\nPin: release a=bookworm-backports\nPin-Priority: 100\n' >"$PIN_FILE"
		changed=1
	fi
	# Refresh once a day at most, or after a change.
	local stamp="$RNIC_CACHE/stamps/apt-update"
	if [ $changed = 1 ] || [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
		need_root
		step "apt-get update"
		apt-get update -qq || die "apt-get update failed: no access to Debian's archive?"
		mkdir -p "$(dirname "$stamp")"
		touch "$stamp"
	fi
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	# meson >= 1.5 for QEMU 10.0 comes from bookworm-backports.
	if ! dpkg --compare-versions "$(dpkg-query -W -f='${Version}' meson 2>/dev/null || echo 0)" ge 1.5; then
		need_root
		step "installing meson from bookworm-backports"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bookworm-backports meson \
			>/dev/null || die "cannot install meson >= 1.5 from bookworm-backports"
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		need_root
		step "installing ${#missing[@]} host packages: ${missing[*]}"
		echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
			>/dev/null || die "apt-get install failed for: ${missing[*]}"
	fi
	ok "host packages present"
}
main "$@"
