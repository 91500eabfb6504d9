#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ./rnic's help and argument errors: `--help`, `help`, `SUB --help` for every
# subcommand usage lists exit 0, an unknown subcommand exits 2 with the usage on
# stderr, and none of them runs setup (an empty RNIC_CACHE and RNIC_BUILD stay
# absent; apt-get, meson, ninja and make on PATH only record that they ran).
#   cli-help.sh RNIC
set -euo pipefail
rnic=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
for t in apt-get meson ninja make cmake; do
	printf '#!/bin/sh\necho "%s $*" >>%s/ran\nexit 1\n' "$t" "$tmp" >"$tmp/bin/$t"
	chmod +x "$tmp/bin/$t"
done
export PATH=$tmp/bin:$PATH RNIC_CACHE=$tmp/cache RNIC_BUILD=$tmp/build
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect RC ARGS...: run ./rnic ARGS, check the exit code; output in $tmp/out, $tmp/err.
expect() {
	local want=$1 rc=0
	shift
	"$rnic" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = "$want" ] || { fail "./rnic $* exited $rc, want $want"; sed 's/^/  | /' "$tmp/err"; }
	echo "ok: ./rnic $* -> $rc"
}

for a in --help -h help ""; do
	if [ -n "$a" ]; then expect 0 "$a"; else expect 0; fi
	grep -q '^usage: ./rnic SUBCOMMAND' "$tmp/out" || fail "./rnic $a printed no usage"
	[ ! -s "$tmp/err" ] || fail "./rnic $a wrote to stderr"
done
usage=$(cat "$tmp/out")
subs=$(awk '/^  [a-z]/ { print $1 }' <<<"$usage")
for s in setup test bench demo lab conformance install export-qemu-patches guest-kit help; do
	grep -qx "$s" <<<"$subs" || fail "usage lists no '$s'"
done
grep -q 'demo .*\[rnic|siw|rxe\]' <<<"$usage" || fail "usage does not show demo rnic|siw|rxe"
for s in $subs; do
	for h in --help -h; do
		expect 0 "$s" "$h"
		grep -q . "$tmp/out" || fail "./rnic $s $h printed nothing"
	done
	if [ "$s" = lab ]; then
		grep -q '^usage: lab.py' "$tmp/out" || fail "./rnic lab --help is not the launcher's help"
	elif [ "$s" = help ]; then
		grep -q '^usage: ./rnic' "$tmp/out" || fail "./rnic help --help is not the usage"
	else
		head -1 "$tmp/out" | grep -q "^  $s" || fail "./rnic $s --help does not start with its entry"
	fi
done

# The conformance runners' own help and cell lists need no setup either.
expect 0 conformance --images --help
grep -q '^usage: image-matrix.py' "$tmp/out" || fail "./rnic conformance --images --help is not the runner's help"
expect 0 conformance --images --list
grep -q '^rev2-crc ' "$tmp/out" || fail "./rnic conformance --images --list lists no cells"
expect 0 conformance --list
grep -q '^rev2-crc-rnic-server ' "$tmp/out" || fail "./rnic conformance --list lists no cells"

expect 2 frobnicate
[ ! -s "$tmp/out" ] || fail "unknown subcommand: usage went to stdout"
grep -q "unknown subcommand 'frobnicate'" "$tmp/err" || fail "unknown subcommand: no message"
grep -q '^usage: ./rnic' "$tmp/err" || fail "unknown subcommand: no usage on stderr"
expect 2 frobnicate --help
expect 2 --frobnicate
expect 2 demo bogus
grep -q "unknown kind 'bogus'" "$tmp/err" || fail "demo bogus: no message"

# Nothing of setup ran.
[ ! -e "$tmp/cache" ] || fail "RNIC_CACHE was created: $(find "$tmp/cache" | head -5 | tr '\n' ' ')"
[ ! -e "$tmp/build" ] || fail "RNIC_BUILD was created"
[ ! -s "$tmp/ran" ] || fail "setup tools ran: $(cat "$tmp/ran")"
[ $fails = 0 ] || { echo "$fails failures"; exit 1; }
echo "all help paths answer without setup"
