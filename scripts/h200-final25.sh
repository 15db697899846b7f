#!/usr/bin/env bash
# The pass's end against its start, files in and out as a user runs it: .device/parvlc-old
# (ad530d5: a dispatch per wave, depth 32) against .device/parvlc (this build: one
# dispatch a batch, depth 48, the GPU released beside the output's sync), and this build
# at --depth 32; three rounds alternating, 240, 960 and 1920 frames of the 1080p pan at
# QP 27 to /dev/shm, 1920 frames to the machine's disk (/tmp) too, and 1920 frames with a
# slice per row. Streams compared with the old build's first.
# There, from the project root, .device carried: bash scripts/h200-final25.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final25
unpack_device
D=/dev/shm/parvlc-final25
mkdir -p "$D" /tmp/parvlc-final25
pan_lengths "$D"
for n in 240 960; do
  .device/parvlc-old h264 "$D/p$n.y4m" --qp 27 -o "$D/old$n.264" --force 2>/dev/null
  .device/parvlc h264 "$D/p$n.y4m" --qp 27 -o "$D/new$n.264" --force 2>/dev/null
  .device/parvlc h264 "$D/p$n.y4m" --qp 27 --slice-rows 1 -o "$D/newrows$n.264" --force 2>/dev/null
  .device/parvlc-old h264 "$D/p$n.y4m" --qp 27 --slice-rows 1 -o "$D/oldrows$n.264" --force 2>/dev/null
  cmp "$D/old$n.264" "$D/new$n.264" && cmp "$D/oldrows$n.264" "$D/newrows$n.264" && echo "$n frames: the same streams (one slice, a slice per row)"
done
for r in 1 2 3; do
  for n in 240 960 1920; do
    wall "old, $n frames, run $r" ".device/parvlc-old h264 $D/p$n.y4m --qp 27 -o $D/x.264 --force"
    wall "new, $n frames, run $r" ".device/parvlc h264 $D/p$n.y4m --qp 27 -o $D/x.264 --force"
    wall "new --depth 32, $n frames, run $r" ".device/parvlc h264 $D/p$n.y4m --qp 27 --depth 32 -o $D/x.264 --force"
  done
  wall "old, 1920 frames to disk, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27 -o /tmp/parvlc-final25/x.264 --force"
  wall "new, 1920 frames to disk, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 -o /tmp/parvlc-final25/x.264 --force"
  wall "old, 1920 frames, a slice per row, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27 --slice-rows 1 -o $D/x.264 --force"
  wall "new, 1920 frames, a slice per row, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 --slice-rows 1 -o $D/x.264 --force"
done
RUST_LOG=parvlc=debug .device/parvlc h264 "$D/p1920.y4m" --qp 27 -o /tmp/parvlc-final25/x.264 --force 2> "$D/log"
grep -E "Wgpu opened|h264: |done after" "$D/log"
rm -rf "$D" /tmp/parvlc-final25
date -u
