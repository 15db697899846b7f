#!/usr/bin/env bash
# JPEG 2000 sequences in batches on the GPU machine (2026-11-28): the build before
# (.device/parvlc-old: one picture per worker) against this one (two workers of depth/2
# pictures, one dispatch for all their code-blocks), alternating, Part 1 and --ht, 30 and
# 60 4K RGB 8-bit frames (a vertical pan), files in and files out, wall of the whole
# process; opj_compress per frame beside them. Every output of the new build is first
# compared with the old build's one-image run (cmp), and the first frame decoded by
# opj_decompress to its source.
# Here: ../shared/device/stage --openjpeg, the old binary as .device/parvlc-old; the new
# build's code is benches/results/h200-2026-11-28-j2k-batches-exp.patch (not kept: slower).
# There, from the project root, .device carried: bash scripts/h200-j2k-batches.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start j2k-batches
NEW=.device/parvlc
OLD=.device/parvlc-old
D=/tmp/parvlc-batches
mkdir -p "$D/in" "$D/one" "$D/seq"
pan_ppm "$D/base.ppm" "$D/in" 60
F30=$(ls "$D"/in/*.ppm | head -30 | tr '\n' ' ')
F60=$(ls "$D"/in/*.ppm | tr '\n' ' ')
echo "== outputs checked"
for ht in "" --ht; do
  for f in $F30; do b=$(basename "$f" .ppm); $OLD j2k $ht "$f" -o "$D/one/$b.j2k" --force 2>/dev/null; done
  for depth in 4 8 16; do
    $NEW j2k $ht $F30 -o "$D/seq" --force --depth $depth 2>/dev/null
    bad=0; for f in "$D"/one/*.j2k; do cmp -s "$f" "$D/seq/$(basename "$f")" || bad=1; done
    [ $bad = 0 ] && echo "${ht:-part1} depth $depth: all 30 outputs equal the old build's one-image runs"
  done
  opj_decompress -i "$D/seq/f000.j2k" -o "$D/back.ppm" >/dev/null 2>&1
  python3 scripts/ppm.py same "$D/in/f000.ppm" "$D/back.ppm"
done
echo "== 30 frames, alternating"
for r in 1 2; do
  for depth in 4 8 16; do
    for ht in "" --ht; do
      wall "old ${ht:-part1} depth $depth run $r" "$OLD j2k $ht $F30 -o $D/seq --force --depth $depth"
      wall "new ${ht:-part1} depth $depth run $r" "$NEW j2k $ht $F30 -o $D/seq --force --depth $depth"
    done
  done
done
echo "== 60 frames"
for r in 1 2; do
  for ht in "" --ht; do
    wall "old ${ht:-part1} 60 frames depth 8 run $r" "$OLD j2k $ht $F60 -o $D/seq --force --depth 8"
    for depth in 8 16; do
      wall "new ${ht:-part1} 60 frames depth $depth run $r" "$NEW j2k $ht $F60 -o $D/seq --force --depth $depth"
    done
  done
done
wall "opj_compress -M 1 -threads $(nproc), 30 frames, one process each" "for f in $F30; do opj_compress -i \$f -o $D/one/x.j2k -M 1 -threads $(nproc); done"
echo "== debug log, new, 30 frames, depth 8"
for ht in "" --ht; do
  RUST_LOG=parvlc=debug $NEW j2k $ht $F30 -o "$D/seq" --force --depth 8 2>&1 >/dev/null \
    | grep -E "images: upload|GPU opened|done after" | cut -c 1-200
done
rm -rf "$D"
date -u
