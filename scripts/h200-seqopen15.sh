#!/usr/bin/env bash
# Fifteenth pass (2026-11-28): a JPEG 2000 sequence whose workers read their first
# pictures while the GPU opens (.device/parvlc) against opening the GPU first
# (.device/parvlc-old), alternating: thirty 4K frames at depth 8, files in and out,
# Part 1 and --ht, outputs compared between the builds; then the first lines of the new
# build's debug log (when the first frames are uploaded and submitted).
# There, from the project root, .device carried: bash scripts/h200-seqopen15.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start seqopen15
D=/tmp/parvlc-seqopen15
mkdir -p "$D/old" "$D/new"
pan_frames "$D" 30
for mode in "" "--ht"; do
  .device/parvlc-old j2k "$D"/in/*.ppm -o "$D/old" --force --depth 8 $mode 2>/dev/null
  .device/parvlc j2k "$D"/in/*.ppm -o "$D/new" --force --depth 8 $mode 2>&1 | tail -1
  bad=0; for f in "$D"/old/*.j2k; do cmp -s "$f" "$D/new/$(basename "$f")" || bad=1; done
  [ $bad = 0 ] && echo "both builds write the same 30 codestreams ($mode)"
  for r in 1 2 3; do
    wall "30 frames $mode depth 8, old, run $r" ".device/parvlc-old j2k $D/in/*.ppm -o $D/old --force --depth 8 $mode"
    wall "30 frames $mode depth 8, new, run $r" ".device/parvlc j2k $D/in/*.ppm -o $D/new --force --depth 8 $mode"
  done
done
echo "-- the new build's first log lines, Part 1"
RUST_LOG=parvlc=debug .device/parvlc j2k "$D"/in/*.ppm -o "$D/new" --force --depth 8 2>&1 \
  | grep -vE "pipeline .* built" | cut -c 15-23,30-220 | head -30
rm -rf "$D"
date -u
