#!/usr/bin/env bash
# Twenty-seventh pass: the stream's first batch made alone (the other coders start once
# it is submitted; it submits its front end before CAVLC's buffers are made), and the
# default batch of 48 1080p pictures read a batch ahead. .device/parvlc-old (1ac43ce,
# depth 32) against this build (its default depth 48, and depth 32), files in and out:
# streams compared first (960 frames, one slice and a slice per row); 1920 frames of the
# 1080p pan at QP 27 to /dev/shm, three rounds alternating, one slice and a slice per row;
# debug-logged runs (the first batches' timeline).
# There, from the project root, .device carried: bash scripts/h200-start27.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start start27
unpack_device
D=/dev/shm/parvlc-start27
mkdir -p "$D"
pan_lengths "$D"
same_streams
same_streams --slice-rows 1
for r in 1 2 3; do
  wall_fresh "parvlc-old, 1920 frames, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27"
  wall_fresh "parvlc, 1920 frames, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27"
  wall_fresh "parvlc --depth 32, 1920 frames, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 --depth 32"
  wall_fresh "parvlc-old, 1920 frames, a slice per row, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27 --slice-rows 1"
  wall_fresh "parvlc, 1920 frames, a slice per row, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 --slice-rows 1"
  wall_fresh "parvlc-old, 960 frames, run $r" ".device/parvlc-old h264 $D/p960.y4m --qp 27"
  wall_fresh "parvlc, 960 frames, run $r" ".device/parvlc h264 $D/p960.y4m --qp 27"
done
for args in "" "--depth 32"; do
  echo "-- parvlc debug-logged $args"
  debug_run "start27-debug${args:+-32}" $args
  python3 scripts/h264_timeline.py "$D/log" | head -6
done
rm -rf "$D"
date -u
