#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# QEMU's C dialect over hw-rnic/: QEMU's own scripts/checkpatch.pl (from the
# QEMU source ./rnic setup unpacks) on every .c and .h of hw-rnic/, the engine
# included.  --strict: a warning fails too.
# usage: checkpatch-hw-rnic.sh RNIC_SRC QEMU_SRC
set -eu
top=$1 qemu=$2
checkpatch=$qemu/scripts/checkpatch.pl
if [ ! -f "$checkpatch" ]; then
    echo "no QEMU source at $qemu (scripts/checkpatch.pl): run ./rnic setup"
    exit 1
fi
cd "$top"
files=$(find hw-rnic -type f \( -name '*.c' -o -name '*.h' \) | sort)
n=$(echo "$files" | wc -l)
# shellcheck disable=SC2086
if perl "$checkpatch" --no-tree --strict --terse --no-summary -f $files; then
    echo "ok: QEMU's checkpatch.pl --strict, $n files of hw-rnic/"
else
    echo "checkpatch: hw-rnic/ is not in QEMU's dialect (above)"
    exit 1
fi
