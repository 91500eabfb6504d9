#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The rnic device as the receiver of a corrupted FPDU: the lab's relay flips one
# byte of a big TCP frame siw (guest 2) sends to rnic (guest 1), CRC on. The
# guests check that the connection fails without delivering data
# (tests/vm/guest/interop-corrupt-to-rnic.sh); here the capture must show the
# device's answer (a Terminate or a reset from rnic) and the pcap checker must
# flag the bad CRC on rnic's side.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${RNIC_CACHE:-$HOME/.cache/rnic}
out=$cache/conformance/corrupt-to-rnic-$(date +%Y%m%d-%H%M%S)-$$
/usr/bin/python3 "$top/tests/vm/lab.py" --guests 2 --nic rnic,virtio --quiet --timeout 400 --out "$out" \
	--no-pcap-check --script "$top/tests/vm/guest/interop-corrupt-to-rnic.sh" \
	--relay --corrupt-nth-tcp 60 --corrupt-from B --only-ethertype 0x0800
grep -q 'corrupted TCP frame' "$out/relay.log" || { echo "the relay corrupted nothing"; exit 1; }
# The first FPDU after the handshake that rnic sends with the Terminate opcode or
# a TCP reset from rnic's address: the device's answer to the bad CRC.
answer=$(tshark -r "$out/guest1.pcap" -2 -o tcp.try_heuristic_first:TRUE --enable-heuristic iwarp_mpa_tcp \
	-Y 'ip.src == 10.77.0.1 && tcp.port == 18590 && (iwarp_rdma.opcode == 7 || tcp.flags.reset == 1)' \
	-T fields -e frame.number 2>/dev/null | head -1)
[ -n "$answer" ] || { echo "rnic sent neither a Terminate nor a reset after the corrupted FPDU"; exit 1; }
echo "rnic's answer to the corrupted FPDU: frame $answer of guest1.pcap"
"$top/tests/conformance/pcap-check.py" --expect-failure --allow-terminate "$out/guest1.pcap"
