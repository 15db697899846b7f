#!/usr/bin/env bash
# Thirty-seventh pass (2026-12-01): a sequence's Part 1 pictures coded several to a
# submission (`parvlc j2k --batch N`: their tier-1 in one dispatch; .device/parvlc-batch,
# built with benches/results/h200-2026-12-01-batch37-exp.patch, not kept)
# against one a submission (--batch 1, and .device/parvlc-vbase, c5e3a04). Thirty and
# ninety frames of the 4K pan, depth 8 (the default); every build's outputs compared with
# the base's first. There: bash scripts/h200-batch37.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-batch37}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
pan_frames "$D" 90
mkdir -p "$D/in30" "$D/base" "$D/new"
for k in $(seq -w 0 29); do ln -s "$D/in/f0$k.ppm" "$D/in30/f0$k.ppm"; done
.device/parvlc-vbase j2k "$D"/in/*.ppm -o "$D/base" --force 2>&1 | tail -1
for b in 2 4; do
  .device/parvlc-batch j2k "$D"/in/*.ppm -o "$D/new" --force --batch $b 2>&1 | tail -1
  same=1
  for f in "$D"/base/*.j2k; do cmp -s "$f" "$D/new/$(basename "$f")" || same=0; done
  [ $same = 1 ] && echo "--batch $b: the base's 90 codestreams"
done
for round in 1 2 3; do
  wall "30 frames, c5e3a04, round $round" ".device/parvlc-vbase j2k $D/in30/*.ppm -o $D/new --force"
  for b in 1 2 4 8; do
    wall "30 frames, --batch $b, round $round" ".device/parvlc-batch j2k $D/in30/*.ppm -o $D/new --force --batch $b"
  done
done
for round in 1 2; do
  wall "90 frames, c5e3a04, round $round" ".device/parvlc-vbase j2k $D/in/*.ppm -o $D/new --force"
  for b in 1 2 4; do
    wall "90 frames, --batch $b, round $round" ".device/parvlc-batch j2k $D/in/*.ppm -o $D/new --force --batch $b"
  done
  wall "90 frames --ht, round $round" ".device/parvlc-batch j2k $D/in/*.ppm -o $D/new --force --ht"
done
echo "== --batch 4, debug log"
RUST_LOG=parvlc=debug .device/parvlc-batch j2k "$D"/in30/*.ppm -o "$D/new" --force --batch 4 2> "$D/log"
grep -E "flight|together|tier-1 of|images ->" "$D/log" | head -5; tail -1 "$D/log"
rm -rf "$D"
date -u
