#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ./rnic setup shows meson's configure error (it used to send meson setup's
# output to /dev/null): a scratch tree holding ./rnic, scripts/setup/common.sh
# (none of the build steps, which setup skips when absent) and a meson.build
# with an error; setup must fail and print meson's own error line.
#   meson-error.sh RNIC COMMON_SH
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/scripts/setup"
cp "$1" "$tmp/tree/rnic"
cp "$2" "$tmp/tree/scripts/setup/common.sh"
cat >"$tmp/tree/meson.build" <<'EOS'
project('broken', 'c')
no_such_function_rnic_test()
EOS
rc=0
RNIC_CACHE=$tmp/cache RNIC_BUILD='' "$tmp/tree/rnic" setup >"$tmp/out" 2>"$tmp/err" || rc=$?
sed 's/^/stdout | /' "$tmp/out"
sed 's/^/stderr | /' "$tmp/err"
[ $rc = 1 ] || { echo "FAIL: setup exited $rc, want 1"; exit 1; }
grep -q 'meson.build:2:0: ERROR: Unknown function "no_such_function_rnic_test"' "$tmp/err" ||
	{ echo "FAIL: meson's error is not shown"; exit 1; }
grep -q 'error: meson setup .* failed' "$tmp/err" || { echo "FAIL: no rnic error line"; exit 1; }
echo "meson's configure error is shown"
