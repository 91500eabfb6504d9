#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ninja_progress (scripts/setup/common.sh) on real ninja builds: 40 steps give
# one line per 10 % (10 lines, 10 % ... 100 %, each with the elapsed time), the
# whole ninja output lands in the log, and a failing step makes it fail with
# the error in the log; 5 steps print nothing.
#   ninja-progress.sh COMMON_SH
set -euo pipefail
common=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RNIC_CACHE=$tmp/cache
# shellcheck source=/dev/null
. "$common"

mkdir "$tmp/ok" "$tmp/bad"
{
	printf 'rule t\n  command = touch $out\n'
	for i in $(seq 1 40); do printf 'build o%d: t\n' "$i"; done
} >"$tmp/ok/build.ninja"
out=$(ninja_progress "$tmp/ok.log" demo -C "$tmp/ok" -j1)
echo "$out"
want=$(for p in 10 20 30 40 50 60 70 80 90 100; do
	printf '[rnic setup] demo: %d %% (%d/40 steps) after N s\n' $p $((p * 40 / 100)); done)
got=$(sed 's/after [0-9]* s$/after N s/' <<<"$out")
[ "$got" = "$want" ] || { echo "FAIL: progress lines differ; want:"; echo "$want"; exit 1; }
[ "$(grep -c '^\[[0-9]*/40\] touch o' "$tmp/ok.log")" = 40 ] ||
	{ echo "FAIL: the log lacks ninja's 40 status lines"; cat "$tmp/ok.log"; exit 1; }

# A small build (5 steps) prints no progress.
{
	printf 'rule t\n  command = touch $out\n'
	for i in $(seq 1 5); do printf 'build o%d: t\n' "$i"; done
} >"$tmp/bad/build.ninja"
out=$(ninja_progress "$tmp/small.log" small -C "$tmp/bad" -j1)
[ -z "$out" ] || { echo "FAIL: 5 steps printed: $out"; exit 1; }
rm -f "$tmp"/bad/o*

printf 'rule f\n  command = echo broken-step-output; false\nbuild x: f\n' >"$tmp/bad/build.ninja"
rc=0
ninja_progress "$tmp/bad.log" bad -C "$tmp/bad" >/dev/null || rc=$?
[ $rc = 1 ] || { echo "FAIL: a failing ninja gave $rc"; exit 1; }
grep -q broken-step-output "$tmp/bad.log" || { echo "FAIL: the failure is not in the log"; exit 1; }
echo "ninja_progress: 10 lines for 40 steps, full log, failure passed on"
