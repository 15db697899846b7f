#!/usr/bin/env bash
# Sixteenth pass, fourth call (2026-11-28): the H.264 CLI with its slices escaped and
# appended a stretch at a time (`.device/parvlc`, 2026-11-28 commit "h264: slices escaped
# ...") against the build before (`.device/parvlc-old`: dcf0de4 with the batch log's
# phases), alternating; then the batch shapes again, since the coders' host work shrank.
#   A. 240 and 960 frames of the 1080p pan, QP 27, CLI defaults, three rounds, each
#      stream compared with the old build's.
#   B. --depth 16/32/64 with 1-4 batches in flight (PARVLC_H264_CODERS), new build, and
#      one debug-logged run of the default shape and of depth 64 with two in flight.
# There, from the project root, .device carried: bash scripts/h200-escape16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start escape16
D=/tmp/parvlc-escape16
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
echo "== A. old against new"
for n in 240 960; do
  h264_ab "$n" 3
done
echo "== B. shapes, new build, 960 frames"
for r in 1 2; do
  for shape in "16 4" "16 6" "32 2" "32 3" "64 1" "64 2"; do
    set -- $shape
    wall "depth $1 coders $2 run $r" "PARVLC_H264_CODERS=$2 .device/parvlc h264 $D/p960.y4m --qp 27 --force -o $D/x.264 --depth $1"
    cmp -s "$D/x.264" "$D/old960.264" || echo "OTHER BYTES"
  done
done
for shape in "16 4" "64 2"; do
  set -- $shape
  echo "-- debug log, depth $1, $2 in flight"
  RUST_LOG=parvlc=debug PARVLC_H264_CODERS=$2 .device/parvlc h264 "$D/p960.y4m" --qp 27 --force -o "$D/x.264" --depth $1 2>&1 \
    | grep -E "h264 batch" | sed -n '10,16p' | cut -c 1-230
done
rm -rf "$D"
date -u
