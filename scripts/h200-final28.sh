#!/usr/bin/env bash
# The twenty-eighth pass's end (.device/parvlc) against its start (c613176,
# .device/parvlc-old), files in and out as a user runs them: streams compared first (960
# frames of the 1080p pan at QP 27: one slice, a slice per row, --luma 16x16, and with
# --recon the stream and the reconstruction); three rounds alternating, each run's
# previous output removed outside the timing: 1920 frames one slice, a slice per row and
# --luma 16x16, 960 frames one slice, to /dev/shm; this build at other depths (1920
# frames, one slice, two runs each); a debug-logged run of this build.
# There, from the project root, .device carried: bash scripts/h200-final28.sh [NAME]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
name=${1:-final28}
h200_start "$name"
unpack_device
D=/dev/shm/parvlc-$name
mkdir -p "$D"
pan_lengths "$D"
same_streams
same_streams --slice-rows 1
same_streams --luma 16x16
recon_same
pass_end_rounds
for depth in 32 40 56 64; do
  for r in 1 2; do
    wall_fresh "parvlc --depth $depth, 1920 frames, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 --depth $depth"
  done
done
debug_run "$name-debug"
rm -rf "$D"
date -u
