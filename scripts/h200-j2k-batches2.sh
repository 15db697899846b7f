#!/usr/bin/env bash
# JPEG 2000 sequences in batches, second call (2026-11-28): images uploaded on all cores,
# and the batch size by an experiment knob (PARVLC_EXP_J2K_BATCH: `depth / batch` workers
# of `batch` pictures; the build is benches/results/h200-2026-11-28-j2k-batches-exp.patch) against the build before (.device/parvlc-old), alternating, 30 4K
# RGB frames, Part 1 and --ht. Outputs compared with the old build's first.
# There, from the project root, .device carried: bash scripts/h200-j2k-batches2.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start j2k-batches2
NEW=.device/parvlc
OLD=.device/parvlc-old
D=/tmp/parvlc-batches
mkdir -p "$D/in" "$D/ref" "$D/seq"
pan_ppm "$D/base.ppm" "$D/in" 30
for ht in "" --ht; do
  $OLD j2k $ht "$D"/in/*.ppm -o "$D/ref" --force --depth 8 2>/dev/null
  for b in 1 2 4; do
    PARVLC_EXP_J2K_BATCH=$b $NEW j2k $ht "$D"/in/*.ppm -o "$D/seq" --force --depth 8 2>/dev/null
    bad=0; for f in "$D"/ref/*.j2k; do cmp -s "$f" "$D/seq/$(basename "$f")" || bad=1; done
    [ $bad = 0 ] && echo "${ht:-part1} batch $b: all 30 outputs equal the old build's"
  done
done
for r in 1 2 3; do
  for ht in "" --ht; do
    wall "old ${ht:-part1} depth 8 run $r" "$OLD j2k $ht $D/in/*.ppm -o $D/seq --force --depth 8"
    for b in 1 2 4; do
      wall "new ${ht:-part1} depth 8 batch $b run $r" "PARVLC_EXP_J2K_BATCH=$b $NEW j2k $ht $D/in/*.ppm -o $D/seq --force --depth 8"
    done
    wall "new ${ht:-part1} depth 16 batch 2 run $r" "PARVLC_EXP_J2K_BATCH=2 $NEW j2k $ht $D/in/*.ppm -o $D/seq --force --depth 16"
    wall "new ${ht:-part1} depth 16 batch 4 run $r" "PARVLC_EXP_J2K_BATCH=4 $NEW j2k $ht $D/in/*.ppm -o $D/seq --force --depth 16"
  done
done
echo "== debug log, new, depth 8, batch 4"
for ht in "" --ht; do
  RUST_LOG=parvlc=debug PARVLC_EXP_J2K_BATCH=4 $NEW j2k $ht "$D"/in/*.ppm -o "$D/seq" --force --depth 8 2>&1 >/dev/null \
    | grep -E "images: upload|done after" | cut -c 1-200
done
rm -rf "$D"
date -u
