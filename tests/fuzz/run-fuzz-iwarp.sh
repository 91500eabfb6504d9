#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the libFuzzer harness for the iWARP receive path (MPA, DDP, RDMAP) with
# clang (ASan+UBSan) and runs it for a bounded time on a generated seed corpus.
# usage: run-fuzz-iwarp.sh SRC_ROOT BUILD_DIR SECONDS
set -eu
SRC=$1 OUT=$2 SECS=${3:-45}
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || { echo "run-fuzz-iwarp: $CC not found; skipping"; exit 77; }
mkdir -p "$OUT/corpus-iwarp" "$OUT/artifacts-iwarp"
WARN="-Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes -Wvla -Wundef -Wshadow"
E="$SRC/hw-rnic/engine"
$CC -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    $WARN -I"$E" -I"$SRC/include" \
    "$SRC/tests/fuzz/fuzz-iwarp.c" "$E/crc32c.c" "$E/mpa.c" "$E/ddp.c" "$E/rdmap.c" \
    -lisal -o "$OUT/fuzz-iwarp"
python3 "$SRC/tests/fuzz/make-iwarp-seeds.py" "$OUT/corpus-iwarp"
echo "run-fuzz-iwarp: fuzz-iwarp for ${SECS}s (corpus $OUT/corpus-iwarp)"
if ! "$OUT/fuzz-iwarp" -max_total_time="$SECS" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$OUT/artifacts-iwarp/" "$OUT/corpus-iwarp" \
        2>"$OUT/fuzz-iwarp.log"; then
    tail -60 "$OUT/fuzz-iwarp.log"
    echo "run-fuzz-iwarp: FAILED; reproduce with: $OUT/fuzz-iwarp $OUT/artifacts-iwarp/<crash-file>"
    exit 1
fi
grep -E '^stat::|INFO: Seed|DONE' "$OUT/fuzz-iwarp.log" | head -20
tail -2 "$OUT/fuzz-iwarp.log"
