#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/setup/host-packages.sh's decisions on this (set-up) host, with apt-get
# replaced on PATH by a recorder that fails:
#  - warm (every package installed): passes as an unprivileged user, runs no
#    apt-get at all (no update, so no network);
#  - a missing package (RNIC_EXTRA_HOST_PACKAGES), unprivileged: fails naming
#    root and the package, no apt-get;
#  - a missing package as root: no archive -> fails with the network message,
#    no apt-get; archive reachable -> apt-get update is what runs;
#  - preflight: another distribution, a 32-bit personality (setarch), too
#    little disk in the cache: each fails with its message, before apt-get.
#   host-packages.sh SETUP_DIR
set -euo pipefail
setup_dir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -m 755 "$tmp/bin" "$tmp/archive"
mkdir -m 777 "$tmp/cache"
cat >"$tmp/bin/apt-get" <<EOS
#!/bin/sh
echo "apt-get \$*" >>$tmp/ran
exit 1
EOS
chmod 755 "$tmp/bin/apt-get"
touch "$tmp/ran"
chmod 666 "$tmp/ran"
mkdir -p "$tmp/archive/dists/bookworm"
echo fake >"$tmp/archive/dists/bookworm/InRelease"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run AS WANT_RC [VAR=VALUE...]: host-packages.sh as AS (root|user) with VARs.
run() {
	local as=$1 want=$2 rc=0
	shift 2
	local cmd=(env PATH="$tmp/bin:$PATH" HOME="$tmp" RNIC_CACHE="$tmp/cache" RNIC_ARCHIVE="file://$tmp/archive"
		"$@" "$setup_dir/host-packages.sh")
	if [ "$as" = user ] && [ "$(id -u)" = 0 ]; then
		cmd=(setpriv --reuid=65534 --regid=65534 --clear-groups "${cmd[@]}")
	fi
	: >"$tmp/ran"
	"${cmd[@]}" >"$tmp/out" 2>&1 || rc=$?
	sed 's/^/  | /' "$tmp/out"
	[ "$rc" = "$want" ] || fail "as $as with $*: exit $rc, want $want"
}
expect_out() { grep -q -- "$1" "$tmp/out" || fail "output lacks '$1'"; }
expect_no_apt() { [ ! -s "$tmp/ran" ] || fail "apt-get ran: $(cat "$tmp/ran")"; }

echo "warm, unprivileged (uid $( [ "$(id -u)" = 0 ] && echo 65534 || id -u)):"
t0=$(date +%s%N)
run user 0
echo "  took $(( ($(date +%s%N) - t0) / 1000000 )) ms"
expect_out 'no apt-get needed'
expect_no_apt

echo "a package missing, unprivileged:"
run user 1 RNIC_EXTRA_HOST_PACKAGES=rnic-test-no-such-package
expect_out 'needs root'
expect_out 'rnic-test-no-such-package'
expect_no_apt

# As root only on a warm host: the sources are in place then, so nothing but
# the recording apt-get is touched.
if [ "$(id -u)" = 0 ] && [ $fails = 0 ]; then
	echo "a package missing, root, no archive:"
	run root 1 RNIC_EXTRA_HOST_PACKAGES=rnic-test-no-such-package RNIC_ARCHIVE="file://$tmp/none"
	expect_out "does not answer"
	expect_no_apt
	echo "a package missing, root, archive reachable:"
	run root 1 RNIC_EXTRA_HOST_PACKAGES=rnic-test-no-such-package
	expect_out 'apt-get update failed'
	grep -qx 'apt-get update -qq' "$tmp/ran" || fail "apt-get update did not run: $(cat "$tmp/ran")"
fi

echo "another distribution:"
printf 'ID=ubuntu\nVERSION_ID="24.04"\n' >"$tmp/os-release"
chmod 644 "$tmp/os-release"
run user 1 RNIC_OS_RELEASE="$tmp/os-release"
expect_out 'this host runs ubuntu 24.04; .*made for Debian 12'
expect_no_apt
echo "a 32-bit personality:"
run user 1 setarch i686
expect_out 'this host is i686'
expect_no_apt
echo "too little disk in the cache:"
run user 1 RNIC_FRESH_GIB=1000000
expect_out 'setup needs about 1000000 GiB there'
expect_no_apt

[ $fails = 0 ] || { echo "$fails failures"; exit 1; }
echo "host-packages.sh: warm without root or apt-get; root and apt-get only for what is missing"
