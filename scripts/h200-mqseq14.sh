#!/usr/bin/env bash
# Thirty 4K RGB frames (a vertical pan), `parvlc j2k FRAMES -o FOLDER --depth 8`, files
# in and out, Part 1, with the MQ kernel at 8, 4 and 2 coders a workgroup (the experiment
# build .device/parvlc-mqwg, PARVLC_EXP_MQ_WG), alternating; outputs compared between
# the counts first.
# There, from the project root, .device carried: bash scripts/h200-mqseq14.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start mqseq14
D=/tmp/parvlc-mqseq14
mkdir -p "$D/in" "$D/8" "$D/4" "$D/2"
pan_frames "$D" 30
for wg in 8 4 2; do
  PARVLC_EXP_MQ_WG=$wg .device/parvlc-mqwg j2k "$D"/in/*.ppm -o "$D/$wg" --force --depth 8 2>/dev/null
done
bad=0; for f in "$D"/8/*.j2k; do cmp -s "$f" "$D/4/$(basename "$f")" && cmp -s "$f" "$D/2/$(basename "$f")" || bad=1; done
[ $bad = 0 ] && echo "8, 4 and 2 coders write the same 30 codestreams"
for r in 1 2 3; do
  for wg in 8 4 2; do
    wall "30 frames Part 1, $wg coders, run $r" "PARVLC_EXP_MQ_WG=$wg .device/parvlc-mqwg j2k $D/in/*.ppm -o $D/$wg --force --depth 8"
  done
done
rm -rf "$D"
date -u
