#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pcap-check accepts a DDP "no buffer" Terminate only on a connection of an
# attempt the lab harness retried (its UDP retry marker, tests/vm/guest/lib.sh),
# in the RFC's bit layout or in Linux siw's: iwarp-pcap --retry writes those
# two cases and seven that must still fail, among them a Terminate that
# answers the peer's.
#   pcap-check-retry.sh SRC_ROOT IWARP_PCAP_TOOL OUT_DIR
set -euo pipefail
src=$1 tool=$2 out=$3
command -v tshark >/dev/null || { echo "tshark not installed: skipping"; exit 77; }
check="$src/tests/conformance/pcap-check.py"
mkdir -p "$out"
fail() { echo "pcap-check-retry: FAIL: $*"; exit 1; }

"$tool" "$out/retry-ok.pcap" --retry ok
log=$("$check" "$out/retry-ok.pcap") || { echo "$log"; fail "the retried attempt's Terminate was refused"; }
echo "$log"
grep -q "conn 0 .*Terminate=1, 1 DDP no-buffer Terminate(s) accepted" <<<"$log" ||
	fail "conn 0's Terminate is not reported as accepted"
grep -q "conn 1 .*Send=2$" <<<"$log" || fail "conn 1 (the retry) is not clean"

# siw: the same Terminate as Linux siw on x86 writes it (layer and EType
# nibbles swapped, M/D in reserved bits), as the lab captured it.
"$tool" "$out/retry-siw.pcap" --retry siw
log=$("$check" "$out/retry-siw.pcap") || { echo "$log"; fail "siw's no-buffer Terminate was refused"; }
echo "$log"
grep -q "conn 0 .*Terminate=1, 1 DDP no-buffer Terminate(s) accepted" <<<"$log" ||
	fail "siw's Terminate is not reported as accepted"
grep -q "Terminate from 10.0.0.2:18522: DDP 1/2/0x02 .* in siw's little-endian bit layout: accepted" \
	<<<"$log" || fail "siw's Terminate is not named"

# answer: siw's Terminate answered by the initiator's own (what rnic's engine
# did until it stopped answering Terminates): siw's stays accepted, the
# answer is a failure.
"$tool" "$out/retry-answer.pcap" --retry answer
log=$("$check" --expect-failure "$out/retry-answer.pcap") || { echo "$log"; fail "the answer was not flagged"; }
echo "$log"
grep -q "unexpected RDMAP opcodes: Terminate=1$" <<<"$log" || fail "case answer: not for one Terminate"
grep -q "Terminate from 10.0.0.1:40010: DDP 1/2/0x05: unexpected: it answers the peer's Terminate" \
	<<<"$log" || fail "case answer: the answer is not named"

# late: the retry's own connection; none: no marker; port: another port's
# marker; rdmap: an RDMAP Terminate; early: the marker before the connection;
# icmp: only an ICMP error quoting a marker.
for c in late none port rdmap early icmp; do
	"$tool" "$out/retry-$c.pcap" --retry "$c"
	log=$("$check" --expect-failure "$out/retry-$c.pcap") || { echo "$log"; fail "case $c was not flagged"; }
	grep -q "unexpected RDMAP opcodes: Terminate=1$" <<<"$log" || { echo "$log"; fail "case $c: not for its Terminate"; }
	echo "pcap-check-retry: case $c flagged"
done
# --allow-terminate still allows every Terminate.
"$check" --allow-terminate "$out/retry-late.pcap" >/dev/null || fail "--allow-terminate refused a Terminate"
echo "pcap-check-retry: OK"
