#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A deliberately corrupted FPDU, injected by the lab's relay between two siw
# guests with MPA CRC on, must be caught by the peer (the guests check that the
# connection fails without delivering data) and by the pcap checker, which must
# flag the capture of the receiving side: proof that the checker can fail.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${RNIC_CACHE:-$HOME/.cache/rnic}
out=$cache/runs/corrupt-fpdu-$(date +%Y%m%d-%H%M%S)-$$
/usr/bin/python3 "$top/tests/vm/lab.py" --guests 2 --nic virtio --quiet --timeout 300 --out "$out" \
	--no-pcap-check --script "$top/tests/vm/guest/corrupt-fpdu.sh" \
	--relay --corrupt-nth-tcp 40 --only-ethertype 0x0800
grep -q 'corrupted TCP frame' "$out/relay.log" || { echo "the relay corrupted nothing"; exit 1; }
"$top/tests/conformance/pcap-check.py" --expect-failure --allow-terminate "$out/guest1.pcap" "$out/guest2.pcap"
