#!/usr/bin/env bash
# This build (.device/parvlc: pictures uploaded through staging kept mapped, cleared by
# the GPU and made before the first batch; the CAVLC and front-end pipelines built side
# by side) against 64c627b (.device/parvlc-old): streams compared first (960 frames, one
# slice and a slice per row), then three rounds alternating of 960 and 1920 frames of
# the 1080p pan at QP 27 to /dev/shm, the previous output removed before each run
# (outside the timing); one slice and a slice per row; a debug-logged run of this build.
# There, from the project root, .device carried: bash scripts/h200-prewarm26.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start prewarm26
unpack_device
D=/dev/shm/parvlc-prewarm26
mkdir -p "$D"
pan_lengths "$D"
same_streams
same_streams --slice-rows 1
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall_fresh "$b, 960 frames, run $r" ".device/$b h264 $D/p960.y4m --qp 27"
    wall_fresh "$b, 1920 frames, run $r" ".device/$b h264 $D/p1920.y4m --qp 27"
    wall_fresh "$b, 1920 frames, a slice per row, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --slice-rows 1"
  done
done
debug_run prewarm26-debug
rm -rf "$D"
date -u
