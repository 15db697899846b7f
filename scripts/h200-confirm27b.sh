#!/usr/bin/env bash
# The twenty-seventh pass's final build (650a394) against 1ac43ce once more, on another
# machine instance (-confirm27's was noisy: 1ac43ce read 1.99-2.30 s there): streams
# compared first (960 frames, one slice and a slice per row), then 1920 frames of the
# 1080p pan at QP 27 to /dev/shm, one slice and a slice per row, four rounds alternating,
# each run's previous output removed outside the timing.
# There, from the project root, .device carried: bash scripts/h200-confirm27b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start confirm27b
unpack_device
D=/dev/shm/parvlc-confirm27b
mkdir -p "$D"
pan_lengths "$D"
same_streams
same_streams --slice-rows 1
for r in 1 2 3 4; do
  for b in parvlc-old parvlc; do
    wall_fresh "$b, 1920 frames, run $r" ".device/$b h264 $D/p1920.y4m --qp 27"
    wall_fresh "$b, 1920 frames, a slice per row, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --slice-rows 1"
  done
done
rm -rf "$D"
date -u
