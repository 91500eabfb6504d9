#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the libFuzzer harness for the offload TCP with clang (ASan+UBSan) and
# runs it for a bounded time on a generated seed corpus.
# usage: run-fuzz.sh SRC_ROOT BUILD_DIR SECONDS
set -eu
SRC=$1 OUT=$2 SECS=${3:-45}
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || { echo "run-fuzz: $CC not found; skipping"; exit 77; }
mkdir -p "$OUT/corpus-tcp" "$OUT/artifacts"
WARN="-Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes -Wvla -Wundef -Wshadow"
$CC -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    $WARN -I"$SRC/hw-rnic/engine" -I"$SRC/include" \
    "$SRC/tests/fuzz/fuzz-tcp.c" "$SRC/hw-rnic/engine/net.c" "$SRC"/hw-rnic/engine/tcp_*.c \
    -o "$OUT/fuzz-tcp"
python3 "$SRC/tests/fuzz/make-seeds.py" "$OUT/corpus-tcp"
echo "run-fuzz: fuzz-tcp for ${SECS}s (corpus $OUT/corpus-tcp)"
if ! "$OUT/fuzz-tcp" -max_total_time="$SECS" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$OUT/artifacts/" "$OUT/corpus-tcp" 2>"$OUT/fuzz-tcp.log"; then
    tail -60 "$OUT/fuzz-tcp.log"
    echo "run-fuzz: FAILED; reproduce with: $OUT/fuzz-tcp $OUT/artifacts/<crash-file>"
    exit 1
fi
grep -E '^stat::|INFO: Seed|DONE' "$OUT/fuzz-tcp.log" | head -20
tail -2 "$OUT/fuzz-tcp.log"
