#!/usr/bin/env bash
# The final build (staging cleared by the GPU only when made ahead) against 64c627b: the
# same streams, then two rounds alternating of 1920 frames of the 1080p pan at QP 27 to
# /dev/shm (one slice, a slice per row), the previous output removed first; one
# debug-logged run (the staging made ahead, cleared by the GPU).
# There, from the project root, .device carried: bash scripts/h200-confirm26.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start confirm26
unpack_device
D=/dev/shm/parvlc-confirm26
mkdir -p "$D"
pan_lengths "$D"
same_streams
same_streams --slice-rows 1
for r in 1 2; do
  for b in parvlc-old parvlc; do
    wall_fresh "$b, 1920 frames, run $r" ".device/$b h264 $D/p1920.y4m --qp 27"
    wall_fresh "$b, 1920 frames, a slice per row, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --slice-rows 1"
  done
done
debug_run confirm26-debug
rm -rf "$D"
date -u
