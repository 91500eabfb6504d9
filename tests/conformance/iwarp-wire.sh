#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The engine's own MPA/DDP/RDMAP encoders against Wireshark's iWARP dissectors:
# iwarp-pcap writes three synthetic conversations (CRC on; markers off and on;
# RFC 7306 atomics) and one with markers one way, pcap-check must find 0 malformed, 0 expert errors, 0 bad
# CRCs and every expected opcode; tshark must find the markers where we put
# them. Then one corrupted CRC must be flagged.
#   iwarp-wire.sh SRC_ROOT IWARP_PCAP_TOOL OUT_DIR
set -euo pipefail
src=$1 tool=$2 out=$3
command -v tshark >/dev/null || { echo "tshark not installed: skipping"; exit 77; }
check="$src/tests/conformance/pcap-check.py"
mkdir -p "$out"
fail() { echo "iwarp-wire: FAIL: $*"; exit 1; }

"$tool" "$out/iwarp-wire.pcap" --rfc7306
log=$("$check" --allow-terminate --allow-opcodes 0,1,2,3,4,5,6,10,11 "$out/iwarp-wire.pcap") ||
	{ echo "$log"; fail "pcap-check rejected the capture"; }
echo "$log"
line() { grep -E "^  conn $1 " <<<"$log" || fail "no connection $1"; }
c0=$(line 0) c1=$(line 1) c2=$(line 2)
grep -q 'MPA rev 2, CRC on (20 checked), markers req/rep off/off' <<<"$c0" || fail "conn 0: $c0"
grep -q 'MPA rev 2, CRC on (20 checked), markers req/rep on/on' <<<"$c1" || fail "conn 1: $c1"
grep -q 'CRC on (4 checked)' <<<"$c2" || fail "conn 2: $c2"
for c in "$c0" "$c1"; do
	for op in Write=4 ReadReq= ReadResp=5 Send=5 SendInv=1 SendSE=1 SendSEInv=1 Terminate=1; do
		case $op in
		Write=4) want='Write=[34] ' ;;
		*) want="$op" ;;
		esac
		grep -Eq "$want" <<<"$c" || fail "missing $op in: $c"
	done
done
grep -q 'AtomicReq=2 AtomicResp=1' <<<"$c2" || fail "conn 2 atomics: $c2"

# Markers: tshark reads FPDUPTR at the offsets it computes from the first FPDU's
# sequence number; ours must be there (4-aligned back-pointers, one per 512 octets).
OPTS=(-2 -o tcp.try_heuristic_first:TRUE --enable-heuristic iwarp_mpa_tcp
      --disable-protocol rpcordma --disable-protocol smb_direct)
ptrs=$(tshark -r "$out/iwarp-wire.pcap" "${OPTS[@]}" -Y iwarp_mpa.marker_fpduptr \
	-T fields -e iwarp_mpa.marker_fpduptr 2>/dev/null | tr ',' '\n' | grep -v '^$')
n=$(wc -l <<<"$ptrs")
[ "$n" -ge 15 ] || fail "tshark saw only $n markers"
while read -r p; do
	[ $((p % 4)) -eq 0 ] && [ "$p" -lt 1448 ] || fail "marker FPDUPTR $p is not a back-pointer"
done <<<"$ptrs"
zeros=$(grep -c '^0$' <<<"$ptrs")
[ "$zeros" -ge 2 ] || fail "expected the leading markers (FPDUPTR 0) of both directions"
echo "iwarp-wire: tshark found $n markers, $zeros of them leading an FPDU"

# Markers one way (image-matrix's markers-client): the initiator asks for them
# (M=1 in the Request, 0 in the Reply), so only the responder marks (RFC 5044
# 7.1.2). The independent walker frames both directions; tshark must decode the
# responder's marked FPDUs (markers where we put them). Its MPA dissector looks
# for markers in both directions once either side asked (minfo[] is set for
# each endpoint's first FPDU when ini_exp_m_res || res_exp_m_ini), so it
# decodes none of the initiator's unmarked FPDUs: reported, not judged.
"$tool" "$out/iwarp-wire-oneway.pcap" --one-way-markers
walk=$("$src/tests/conformance/mpa-stream-check.py" "$out/iwarp-wire-oneway.pcap") ||
	{ echo "$walk"; fail "mpa-stream-check rejected the one-way markers capture"; }
echo "$walk"
grep -Eq '40004->7205 .*markers off: 11 FPDUs, 0 markers, 11 CRCs' <<<"$walk" ||
	fail "one-way markers: the initiator's direction"
grep -Eq '7205->40004 .*markers on: 8 FPDUs, [1-9][0-9]* markers, 8 CRCs' <<<"$walk" ||
	fail "one-way markers: the responder's direction"
one=$("$check" --allow-terminate "$out/iwarp-wire-oneway.pcap") ||
	{ echo "$one"; fail "pcap-check rejected the one-way markers capture"; }
echo "$one"
grep -q 'markers req/rep on/off, .*ReadResp=5 Send=2 Terminate=1' <<<"$one" ||
	fail "tshark did not decode the responder's marked FPDUs"
ini=$(tshark -r "$out/iwarp-wire-oneway.pcap" "${OPTS[@]}" -Y 'tcp.srcport == 40004 && iwarp_rdma' \
	2>/dev/null | wc -l)
echo "iwarp-wire: one-way markers: tshark decoded $ini of the initiator's 11 unmarked FPDUs"

# One flipped CRC bit (FPDU 30: on the marked connection) must be caught.
"$tool" "$out/iwarp-wire-badcrc.pcap" --corrupt-crc 30
bad=$("$check" --expect-failure --allow-terminate "$out/iwarp-wire-badcrc.pcap") ||
	{ echo "$bad"; fail "the corrupted CRC was not flagged"; }
echo "$bad"
grep -q '1 bad MPA CRCs' <<<"$bad" || fail "expected exactly one bad CRC"
echo "iwarp-wire: OK"
