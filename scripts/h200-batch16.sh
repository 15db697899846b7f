#!/usr/bin/env bash
# Sixteenth pass, fifth call (2026-11-28): the H.264 coders' host work spread over the
# cores (a batch's upload copied and its pictures' NAL units written a picture a core;
# `.device/parvlc`) against the build before (`.device/parvlc-old`, the escape commit),
# alternating; then the batch shapes (--depth, PARVLC_H264_CODERS) on the new build.
# 240 and 960 frames of the 1080p pan, QP 27; every stream compared with the old
# build's.
# There, from the project root, .device carried: bash scripts/h200-batch16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start batch16
D=/tmp/parvlc-batch16
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
echo "== A. old against new, defaults"
for n in 240 960; do
  h264_ab "$n" 2
done
echo "== B. shapes, 960 frames"
for r in 1 2; do
  for shape in "16 4" "32 2" "32 3" "48 2" "64 2" "64 3"; do
    set -- $shape
    for b in parvlc-old parvlc; do
      wall "depth $1 coders $2, $b, run $r" "PARVLC_H264_CODERS=$2 .device/$b h264 $D/p960.y4m --qp 27 --force -o $D/x.264 --depth $1"
      cmp -s "$D/x.264" "$D/old960.264" || echo "OTHER BYTES"
    done
  done
done
for shape in "32 3" "64 2"; do
  set -- $shape
  echo "-- debug log, depth $1, $2 in flight"
  RUST_LOG=parvlc=debug PARVLC_H264_CODERS=$2 .device/parvlc h264 "$D/p960.y4m" --qp 27 --force -o "$D/x.264" --depth $1 2>&1 \
    | grep -E "h264 batch" | sed -n '8,12p' | cut -c 1-230
done
rm -rf "$D"
date -u
