#!/usr/bin/env bash
# The batch's depth with CAVLC a group at a time: 1920 frames of the 1080p pan at QP 27,
# one slice, --depth 48 (the default), 56 and 64 alternating, four rounds, each run's
# previous output removed outside the timing; then a slice per row at 48 and 56, two
# rounds. The streams at 56 and 64 compared with 48's first.
# There, from the project root, .device carried: bash scripts/h200-depth28.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start depth28
unpack_device
D=/dev/shm/parvlc-depth28
mkdir -p "$D"
pan_lengths "$D"
.device/parvlc h264 "$D/p1920.y4m" --qp 27 -o "$D/ref.264" 2>/dev/null
for depth in 56 64; do
  .device/parvlc h264 "$D/p1920.y4m" --qp 27 --depth $depth -o "$D/d.264" 2>/dev/null
  cmp "$D/ref.264" "$D/d.264" && echo "--depth $depth: the same stream as 48's"
done
rm -f "$D/ref.264" "$D/d.264"
for r in 1 2 3 4; do
  for depth in 48 56 64; do
    wall_fresh "--depth $depth, 1920 frames, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 --depth $depth"
  done
done
for r in 1 2; do
  for depth in 48 56; do
    wall_fresh "--depth $depth, 1920 frames, a slice per row, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 --slice-rows 1 --depth $depth"
  done
done
rm -rf "$D"
date -u
