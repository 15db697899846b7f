#!/usr/bin/env bash
# Thirty-fourth pass (2026-11-30), after the final review: the HT shader's three byte
# streams written through one writer (.device/parvlc-mend) against the pass's final
# build (.device/parvlc): the 4K picture --ht, same codestream; `bench j2k --sizes 4K`'s
# HT rows (every GPU block checked against the CPU first), two rounds alternating.
# There, from the project root, .device carried:  bash scripts/h200-mend34.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start mend34
unpack_device
D=/tmp/parvlc-mend34
mkdir -p "$D"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
for b in parvlc parvlc-mend; do .device/$b j2k "$D/pic.ppm" -o "$D/$b.j2k" --force --ht 2>/dev/null; done
cmp "$D/parvlc.j2k" "$D/parvlc-mend.j2k" && echo "4K --ht: both builds write the same codestream"
for r in 1 2; do
  for b in parvlc parvlc-mend; do
    echo "== bench j2k 4K, $b, round $r"
    .device/$b bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "ht"
  done
done
rm -rf "$D"
date -u
