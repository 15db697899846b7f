#!/usr/bin/env bash
# Thirty-fourth pass (2026-11-30), fifth call: the readback of many small parts (a 4K
# picture's 5,907 HT code-blocks, gathered) copied out of mapped memory as one span and
# split in host memory (.device/parvlc-copy) against part by part (.device/parvlc, the
# build of the fourth call), alternating: the 4K picture --ht debug-logged, four runs each
# (the readback's copy time), same codestream; then `bench j2k --sizes 4K`, two rounds.
# There, from the project root, .device carried:  bash scripts/h200-htcopy34.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start htcopy34
unpack_device
D=/tmp/parvlc-htcopy34
mkdir -p "$D"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
.device/parvlc j2k "$D/pic.ppm" -o "$D/ref.j2k" --force --ht 2>/dev/null
for r in 1 2 3 4; do
  for b in parvlc parvlc-copy; do
    echo "== $b, run $r"
    RUST_LOG=parvlc=debug .device/$b j2k "$D/pic.ppm" -o "$D/x.j2k" --force --ht 2>&1 | grep -E "readback of 8|gathered|tier-2|encoded in" | sed -E 's/^\[[^ ]+ //'
    cmp -s "$D/x.j2k" "$D/ref.j2k" || echo "$b: OTHER BYTES"
  done
done
for r in 1 2; do
  for b in parvlc parvlc-copy; do
    echo "== bench j2k 4K, $b, round $r"
    .device/$b bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "ht"
  done
done
rm -rf "$D"
date -u
