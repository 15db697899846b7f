#!/usr/bin/env bash
# H.264 pictures uploaded through staging buffers kept mapped between batches
# (.device/parvlc) against each batch's fresh staging from Queue::write_buffer
# (.device/parvlc-old, 64c627b): streams compared first, then three rounds alternating,
# 960 and 1920 frames of the 1080p pan at QP 27 to /dev/shm, one slice and a slice per
# row; one debug-logged run of each build, its batches' phases summarized.
# There, from the project root, .device carried: bash scripts/h200-stage26.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start stage26
unpack_device
D=/dev/shm/parvlc-stage26
mkdir -p "$D"
pan_lengths "$D"
for n in 240 960; do
  .device/parvlc-old h264 "$D/p$n.y4m" --qp 27 -o "$D/old$n.264" --force 2>/dev/null
  .device/parvlc h264 "$D/p$n.y4m" --qp 27 -o "$D/new$n.264" --force 2>/dev/null
  .device/parvlc-old h264 "$D/p$n.y4m" --qp 27 --slice-rows 1 -o "$D/oldrows$n.264" --force 2>/dev/null
  .device/parvlc h264 "$D/p$n.y4m" --qp 27 --slice-rows 1 -o "$D/newrows$n.264" --force 2>/dev/null
  cmp "$D/old$n.264" "$D/new$n.264" && cmp "$D/oldrows$n.264" "$D/newrows$n.264" && echo "$n frames: the same streams (one slice, a slice per row), $(stat -c %s "$D/new$n.264") bytes"
done
rm -f "$D"/old*.264 "$D"/new*.264
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall "$b, 960 frames, run $r" ".device/$b h264 $D/p960.y4m --qp 27 -o $D/x.264 --force"
    wall "$b, 1920 frames, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 -o $D/x.264 --force"
    wall "$b, 1920 frames, a slice per row, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --slice-rows 1 -o $D/x.264 --force"
  done
done
for b in parvlc-old parvlc; do
  echo "-- $b, 1920 frames, debug-logged"
  RUST_LOG=parvlc=debug .device/$b h264 "$D/p1920.y4m" --qp 27 -o "$D/x.264" --force 2> "$D/$b.log"
  grep -E "Wgpu opened|h264: |done after" "$D/$b.log"
  grep -c "created" "$D/$b.log"
  batch_phases "$D/$b.log"
done
gzip -c "$D/parvlc.log" > "$OUT/stage26-debug.log.gz"
rm -rf "$D"
date -u
