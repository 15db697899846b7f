#!/usr/bin/env bash
# The twenty-seventh pass's final build (650a394: the build measured in -final27 with
# staged_upload made synchronous and the coder loop moved into a method) against
# 1ac43ce (.device/parvlc-old), files in and out as a user runs them: streams compared
# first (960 frames of the 1080p pan at QP 27: one slice, a slice per row, --luma 16x16);
# then three rounds alternating, each run's previous output removed outside the timing:
# 1920 frames one slice, a slice per row and --luma 16x16, 960 frames one slice, to
# /dev/shm; a debug-logged run of the new build.
# There, from the project root, .device carried: bash scripts/h200-confirm27.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start confirm27
unpack_device
D=/dev/shm/parvlc-confirm27
mkdir -p "$D"
pan_lengths "$D"
same_streams
same_streams --slice-rows 1
same_streams --luma 16x16
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall_fresh "$b, 1920 frames, run $r" ".device/$b h264 $D/p1920.y4m --qp 27"
    wall_fresh "$b, 1920 frames, a slice per row, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --slice-rows 1"
    wall_fresh "$b, 1920 frames, --luma 16x16, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --luma 16x16"
    wall_fresh "$b, 960 frames, run $r" ".device/$b h264 $D/p960.y4m --qp 27"
  done
done
debug_run confirm27-debug
rm -rf "$D"
date -u
