#!/usr/bin/env bash
# Thirty-sixth pass (2026-12-01): thirty 4K frames, --ht and Part 1, .device/parvlc (the
# pass's build) against .device/parvlc-base (be8bf6b), three rounds, the new build first
# in each (the final36 call ran the base first and read the new build 0.08 s slower on
# --ht); codestreams compared.
# There, from the project root, .device carried:  bash scripts/h200-frames36.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start frames36
unpack_device
D=/tmp/parvlc-frames36
pan_frames "$D" 30
mkdir -p "$D/base" "$D/new"
for r in 1 2 3; do
  for b in new base; do
    wall "30 frames --ht depth 8, $b, run $r" "$(ht_bin $b) j2k $D/in/*.ppm -o $D/$b --force --depth 8 --ht"
  done
  for b in new base; do
    wall "30 frames Part 1, $b, run $r" "$(ht_bin $b) j2k $D/in/*.ppm -o $D/$b --force"
  done
done
bad=0; for f in "$D"/base/*.j2k; do cmp -s "$f" "$D/new/$(basename "$f")" || bad=1; done
[ $bad = 0 ] && echo "30 frames: both builds write the same codestreams" || echo "30 frames: OTHER BYTES"
rm -rf "$D"
date -u
