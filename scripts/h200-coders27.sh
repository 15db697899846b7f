#!/usr/bin/env bash
# Twenty-seventh pass: two or three batches of 48 in flight (PARVLC_H264_CODERS) with
# the final build (650a394), and 1ac43ce (.device/parvlc-old) for the instance's speed:
# 1920 frames of the 1080p pan at QP 27 to /dev/shm, one slice and a slice per row,
# four rounds alternating, each run's stream compared with the default's.
# There, from the project root, .device carried: bash scripts/h200-coders27.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start coders27
unpack_device
D=/dev/shm/parvlc-coders27
mkdir -p "$D"
pan_lengths "$D"
.device/parvlc h264 "$D/p1920.y4m" --qp 27 -o "$D/ref.264" 2>/dev/null
for r in 1 2 3 4; do
  wall_fresh "parvlc-old, one slice, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27"
  for c in 2 3; do
    wall_fresh "parvlc, $c in flight, one slice, run $r" "PARVLC_H264_CODERS=$c .device/parvlc h264 $D/p1920.y4m --qp 27"
    cmp -s "$D/x.264" "$D/ref.264" || echo "OTHER BYTES"
    wall_fresh "parvlc, $c in flight, a slice per row, run $r" "PARVLC_H264_CODERS=$c .device/parvlc h264 $D/p1920.y4m --qp 27 --slice-rows 1"
  done
done
rm -rf "$D"
date -u
