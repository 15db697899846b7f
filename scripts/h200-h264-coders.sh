#!/usr/bin/env bash
# The H.264 GPU front end's coders (PARVLC_H264_CODERS) against its batch (--depth),
# 2026-11-28: 240 frames of the 1080p pan at QP 27, --luma auto, two rounds, each stream
# compared with the default shape's.
# There, from the project root, .device carried: bash scripts/h200-h264-coders.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264-coders
B=.device/parvlc
D=/tmp/parvlc-coders
mkdir -p "$D"
pan_y4m "$D/pan.y4m"
$B h264 "$D/pan.y4m" --qp 27 --force -o "$D/ref.264" --luma auto 2>/dev/null
for r in 1 2; do
  for shape in "4 4" "4 8" "8 4" "8 6" "8 8" "16 4" "16 6"; do
    set -- $shape
    wall "auto depth $1 coders $2 run $r" "PARVLC_H264_CODERS=$2 $B h264 $D/pan.y4m --qp 27 --force -o $D/x.264 --luma auto --depth $1"
    cmp -s "$D/x.264" "$D/ref.264" || echo "depth $1 coders $2: OTHER BYTES"
  done
done
rm -rf "$D"
date -u
