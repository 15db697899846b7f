#!/usr/bin/env bash
# Twenty-seventh pass: the H.264 CLI's batch shape again, now with the Y4M readers' reach
# (PARVLC_Y4M_AHEAD, PARVLC_Y4M_READERS: knobs of the experiment build) raised with the
# batch, since at depth 48 the coders waited 9 ms a batch for pictures (-depth26). 1920
# frames of the 1080p pan at QP 27 to /dev/shm, one slice; every shape twice, rounds
# alternating; streams compared with the default's; debug-logged runs of two shapes.
# There, from the project root, .device carried: bash scripts/h200-depth27.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start depth27
unpack_device
D=/dev/shm/parvlc-depth27
mkdir -p "$D"
pan_lengths "$D"
.device/parvlc h264 "$D/p1920.y4m" --qp 27 -o "$D/ref.264" 2>/dev/null
# depth coders ahead readers
SHAPES="32:2:16:4 32:2:32:4 40:2:40:4 48:2:16:4 48:2:48:4 48:3:48:4 48:2:48:8 64:2:64:4 64:3:64:4"
for r in 1 2; do
  for s in $SHAPES; do
    IFS=: read -r d c a n <<< "$s"
    wall_fresh "depth $d, coders $c, ahead $a, readers $n, run $r" \
      "PARVLC_H264_CODERS=$c PARVLC_Y4M_AHEAD=$a PARVLC_Y4M_READERS=$n .device/parvlc h264 $D/p1920.y4m --qp 27 --depth $d"
    cmp -s "$D/x.264" "$D/ref.264" || echo "OTHER BYTES"
  done
done
for r in 1 2; do
  for s in 32:2:16:4 48:2:48:4 48:3:48:4; do
    IFS=: read -r d c a n <<< "$s"
    wall_fresh "a slice per row, depth $d, coders $c, ahead $a, run $r" \
      "PARVLC_H264_CODERS=$c PARVLC_Y4M_AHEAD=$a PARVLC_Y4M_READERS=$n .device/parvlc h264 $D/p1920.y4m --qp 27 --depth $d --slice-rows 1"
  done
done
for s in 48:2:48:4 48:3:48:4; do
  IFS=: read -r d c a n <<< "$s"
  echo "-- debug-logged: depth $d, coders $c, ahead $a"
  PARVLC_H264_CODERS=$c PARVLC_Y4M_AHEAD=$a PARVLC_Y4M_READERS=$n debug_run "depth27-d$d-c$c" --depth "$d"
done
rm -rf "$D"
date -u
