#!/usr/bin/env bash
# Fifteenth pass (2026-11-28): the HT cleanup kernel's code-blocks per workgroup
# (PARVLC_EXP_HT_WG, an experiment knob; 64 is the committed value) in two experiment
# builds: .device/parvlc-htwg (the committed shader) and .device/parvlc-htload (the
# row above read once a quad, the block's magnitude scan four loads at a time).
#   - one 4K picture --ht: every build and count writes the same codestream, which
#     opj_decompress decodes to its source;
#   - `bench j2k --sizes 4K` (its HT rows check every GPU result against the CPU HT
#     coder), each build at 64, 16 and 4, alternating;
#   - thirty 4K frames --ht at depth 8, files in and out, outputs compared.
# There, from the project root, .device carried (staged with --openjpeg):
#   bash scripts/h200-htwg15.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start htwg15
D=/tmp/parvlc-htwg15
mkdir -p "$D/ref"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
.device/parvlc-htwg j2k "$D/pic.ppm" -o "$D/ref.j2k" --force --ht 2>&1 | tail -1
opj_decompress -i "$D/ref.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/pic.ppm" && echo "opj_decompress gives the source"
for b in htwg htload; do
  for wg in 64 16 4 2; do
    PARVLC_EXP_HT_WG=$wg .device/parvlc-$b j2k "$D/pic.ppm" -o "$D/x.j2k" --force --ht 2>/dev/null
    cmp -s "$D/x.j2k" "$D/ref.j2k" && echo "$b $wg: same codestream" || echo "$b $wg: OTHER BYTES"
  done
done
for r in 1 2; do
  for b in htwg htload; do
    for wg in 64 16 4 2; do
      echo "== $b wg $wg round $r"
      PARVLC_EXP_HT_WG=$wg .device/parvlc-$b bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "ht"
    done
  done
done
pan_frames "$D" 30
.device/parvlc-htwg j2k "$D"/in/*.ppm -o "$D/ref" --force --depth 8 --ht 2>/dev/null
for r in 1 2; do
  for b in htwg htload; do
    for wg in 64 4; do
      mkdir -p "$D/$b$wg"
      wall "30 frames --ht, $b wg $wg, run $r" "PARVLC_EXP_HT_WG=$wg .device/parvlc-$b j2k $D/in/*.ppm -o $D/$b$wg --force --depth 8 --ht"
      bad=0; for f in "$D"/ref/*.j2k; do cmp -s "$f" "$D/$b$wg/$(basename "$f")" || bad=1; done
      [ $bad = 0 ] || echo "$b $wg: OTHER SEQUENCE BYTES"
    done
  done
done
rm -rf "$D"
date -u
