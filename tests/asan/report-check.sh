#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The sanitizer checks must fail on a real report. INJECT is sanitizer-inject
# (built with ASan/UBSan, the runtimes the sanitized QEMU uses), which makes
# one on request:
# 1. sanitizer_reports.py finds its ASan and its UBSan report inside a
#    guest's console output, and nothing in a clean console log that talks
#    about errors (fixtures/clean-console.log);
# 2. lab.py, run on a stand-in "QEMU" that prints the console's exit marker
#    rc=0 and then runs INJECT (its report on the stand-in's stderr, then
#    SIGABRT), passes when INJECT commits nothing and fails with a report,
#    in plain and in TAP mode (a `sanitizers` subtest);
# 3. qtest-asan.py fails a program whose child writes a report (INJECT as
#    the program) and passes it when there is none.
#   report-check.sh INJECT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
inject=$(realpath "${1:?usage: report-check.sh SANITIZER-INJECT}")
work=$(mktemp -d /tmp/rnic-asan-check-XXXXXX)
trap 'rm -rf "$work"' EXIT
bad=0
check() { # check WHAT EXPECTED-STATUS CMD...
	local what=$1 want=$2 rc=0
	shift 2
	"$@" >"$work/out" 2>&1 || rc=$?
	if [ "$rc" = "$want" ]; then
		echo "ok: $what (exit $rc)"
	else
		echo "FAIL: $what: exit $rc, want $want"
		sed 's/^/  | /' "$work/out"
		bad=1
	fi
}
shows() { # shows WHAT REGEX: the last check's output matches
	grep -qE "$2" "$work/out" && return
	echo "FAIL: $1: no line matches '$2'"
	sed 's/^/  | /' "$work/out"
	bad=1
}
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=0
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
for kind in asan ubsan; do
	{ head -5 "$here/fixtures/clean-console.log"; "$inject" $kind 2>&1 || true
	  tail -3 "$here/fixtures/clean-console.log"; } >"$work/$kind-console.log"
done
san=$here/sanitizer_reports.py
check "ASan report in a console log" 1 "$san" "$work/asan-console.log"
shows "ASan report shown" 'ERROR: AddressSanitizer: heap-buffer-overflow'
check "UBSan report in a console log" 1 "$san" "$work/ubsan-console.log"
shows "UBSan report shown" 'runtime error: signed integer overflow'
check "clean console: no report" 0 "$san" "$here/fixtures/clean-console.log"

cat >"$work/qemu" <<SH
#!/bin/sh
echo "RNIC-LAB-EXIT rc=0"
exec "$inject" "\${FAKE_QEMU_INJECT:-none}"
SH
chmod +x "$work/qemu"
unset ASAN_OPTIONS UBSAN_OPTIONS    # lab.py sets its own
lab() { RNIC_QEMU=$work/qemu /usr/bin/python3 "$top/tests/vm/lab.py" --guests 1 --nic rnic --quiet \
	--timeout 60 --no-pcap --script "$top/tests/vm/guest/rnic-l2.sh" --out "$work/run-$1" "${@:2}"; }
check "lab.py, no report: passes" 0 lab clean
FAKE_QEMU_INJECT=asan check "lab.py, ASan report: fails" 1 lab asan
shows "lab.py shows the report" '^lab: sanitizer report in .*guest1.log'
FAKE_QEMU_INJECT=ubsan check "lab.py --tap, UBSan report: fails" 1 lab tap --tap
shows "lab.py --tap has a failing sanitizers subtest" '^not ok [0-9]+ - sanitizers'

# qtest-asan.py QEMU PROGRAM: here INJECT stands for both. It keeps its
# report directory (under TMPDIR) when it finds a report.
export TMPDIR=$work
check "qtest-asan.py, no report: passes" 0 "$here/qtest-asan.py" "$inject" "$inject" none
check "qtest-asan.py, ASan report: fails" 1 "$here/qtest-asan.py" "$inject" "$inject" asan
shows "qtest-asan.py shows the report" 'qtest-asan: sanitizer report in .*/asan\.[0-9]+:'
exit $bad
