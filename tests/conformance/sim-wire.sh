#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The simulated rnics' own wire (tests/sim/iwarp-sim, two devices, no loss)
# judged by Wireshark's iWARP dissectors and by an independent MPA stream
# walker: CRC on/off, markers on/off, MPA rev 1/2, untagged and over an
# 802.1Q VLAN, every RDMAP opcode the
# workloads produce (Write, Read Request/Response, Send [SE] [Inv], Immediate
# Data [SE], Atomic Request/Response).
#
#  - pcap-check.py (tshark): 0 malformed, 0 expert errors, 0 bad CRCs, only
#    and all the expected opcodes.  With markers, tshark 4.0 mis-frames an
#    FPDU that ends exactly on the 512-octet marker grid (see iwarp-pcap.c)
#    and loses the stream from there: for marker captures the tshark verdict
#    must be clean, or its errors must come with grid-ending FPDUs reported
#    by the walker; the MPA negotiation it decoded must still be M=1 both ways.
#  - mpa-stream-check.py: every marker, CRC, pad, DDP/RDMAP version and the
#    full opcode set, on every capture, markers or not.
#  - negative control: one CRC flipped in a capture must fail both checkers.
#
# The runs use --force-features 0x70 (FRMR, atomics, immediate data): the
# engine implements them although RNIC_REG_FEATURES does not list them yet.
#   sim-wire.sh SRC_ROOT IWARP_SIM OUT_DIR
set -euo pipefail
src=$1 sim=$2 out=$3
command -v tshark >/dev/null || { echo "tshark not installed: skipping"; exit 77; }
check="$src/tests/conformance/pcap-check.py"
walk="$src/tests/conformance/mpa-stream-check.py"
mkdir -p "$out"
fail() { echo "sim-wire: FAIL: $*"; exit 1; }
ALL=0,1,2,3,4,5,6,8,9,10,11
common=(--seed 25 --qps 2 --rounds 2 --ops 24 --max-size 64K --force-features 0x70
	--ops-set send,sendse,sendinv,write,read,fadd,cswap,writeimm)

run() {
	local name=$1; shift
	local pcap="$out/sim-$name.pcap"
	"$sim" "${common[@]}" "$@" --pcap "$pcap" >"$out/sim-$name.log" ||
		{ cat "$out/sim-$name.log"; fail "$name: the workload failed"; }
	echo "== $name ($*)"
	wlog=$("$walk" --require-opcodes $ALL "$pcap") || { echo "$wlog"; fail "$name: stream walk"; }
	echo "$wlog"
	tlog=$("$check" --allow-opcodes $ALL --require-opcodes $ALL "$pcap") && { echo "$tlog"; return; }
	echo "$tlog"
	case $name in marker-*) ;; *) fail "$name: tshark rejected the capture" ;; esac
	grep -Eq '[1-9][0-9]* FPDUs end on the marker grid' <<<"$wlog" ||
		fail "$name: tshark errors without a grid-ending FPDU to explain them"
	grep -q 'markers req/rep on/on' <<<"$tlog" || fail "$name: tshark did not decode M=1 both ways"
	! grep -q 'bad MPA CRC' <<<"$tlog" || fail "$name: tshark found bad CRCs"
	echo "   (tshark 4.0 marker-grid quirk: tolerated, the walker checked every marker and CRC)"
}

run crc-rev2 --crc 1 --markers 0 --rev 2
run nocrc-rev1 --crc 0 --markers 0 --rev 1
run crc-rev1-jumbo --crc 1 --markers 0 --rev 1 --mtu 9000
run marker-crc-rev2 --crc 1 --markers 1 --rev 2
run marker-nocrc-rev1 --crc 0 --markers 1 --rev 1
# over 802.1Q VLAN 100: every frame tagged (iwarp-sim checks the TCIs)
run vlan-crc-rev2 --crc 1 --markers 0 --rev 2 --vlan 0xa064

# Negative control: the 40th data frame's last octet (an MPA CRC) flipped in
# the capture only; both checkers must flag it.
"$sim" "${common[@]}" --crc 1 --pcap "$out/sim-badcrc.pcap" --pcap-corrupt 40 >/dev/null ||
	fail "badcrc: the workload failed"
"$walk" --expect-failure "$out/sim-badcrc.pcap" | grep 'bad CRC' ||
	fail "the stream walker missed the flipped CRC"
bad=$("$check" --expect-failure --allow-opcodes $ALL "$out/sim-badcrc.pcap") ||
	{ echo "$bad"; fail "tshark missed the flipped CRC"; }
grep -q '1 bad MPA CRCs' <<<"$bad" || { echo "$bad"; fail "expected exactly one bad CRC from tshark"; }
echo "sim-wire: OK"
