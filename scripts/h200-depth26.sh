#!/usr/bin/env bash
# H.264 batch depth with the pictures' staging kept mapped (.device/parvlc) beside
# 64c627b (.device/parvlc-old): 1920 frames of the 1080p pan at QP 27 to /dev/shm, the
# previous output removed before each run (outside the timing), depth 32, 40, 48 and
# 64, one slice and a slice per row, three rounds alternating; debug-logged runs at 32
# and 48 (the end of a run: how long the encoder's and the engine's release take).
# There, from the project root, .device carried: bash scripts/h200-depth26.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start depth26
unpack_device
D=/dev/shm/parvlc-depth26
mkdir -p "$D"
pan_lengths "$D"
.device/parvlc-old h264 "$D/p960.y4m" --qp 27 -o "$D/old.264" 2>/dev/null
.device/parvlc h264 "$D/p960.y4m" --qp 27 --depth 48 -o "$D/new.264" 2>/dev/null
cmp "$D/old.264" "$D/new.264" && echo "960 frames: the same stream at depth 48, $(stat -c %s "$D/new.264") bytes"
rm -f "$D/old.264" "$D/new.264"
for r in 1 2 3; do
  wall_fresh "old, depth 32, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27"
  for depth in 32 40 48 64; do
    wall_fresh "new, depth $depth, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 --depth $depth"
  done
  wall_fresh "old, depth 48, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27 --depth 48"
  for depth in 32 48; do
    wall_fresh "new, depth $depth, a slice per row, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 --depth $depth --slice-rows 1"
  done
done
for depth in 32 48; do
  rm -f "$D/x.264"
  echo "-- depth $depth, debug-logged"
  RUST_LOG=parvlc=debug .device/parvlc h264 "$D/p1920.y4m" --qp 27 --depth $depth -o "$D/x.264" 2> "$D/log$depth"
  grep -E "Wgpu opened|h264: |done after" "$D/log$depth"
  python3 scripts/h264_timeline.py "$D/log$depth" | tail -9
done
gzip -c "$D/log48" > "$OUT/depth26-debug48.log.gz"
rm -rf "$D"
date -u
