#!/usr/bin/env bash
# Twenty-seventh pass: the front end reading its pictures from the staging buffer they
# were written to (bound as storage, read across the link) instead of a copy in GPU
# memory. This build with PARVLC_H264_UPLOAD=copy (the copy, a knob of the experiment)
# and without (the binding), and .device/parvlc-old (1ac43ce): streams compared first;
# the front end's GPU time (h264_intra_bench, timestamps of the pass: the copy is not in
# them), two rounds; the CLI on 1920 frames of the 1080p pan at QP 27 to /dev/shm, three
# rounds alternating, one slice and a slice per row; a debug-logged run of each upload.
# There, from the project root, .device carried: bash scripts/h200-upload27.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start upload27
unpack_device
D=/dev/shm/parvlc-upload27
mkdir -p "$D"
pan_lengths "$D"
same_streams
same_streams --slice-rows 1
PARVLC_H264_UPLOAD=copy .device/parvlc h264 "$D/p960.y4m" --qp 27 -o "$D/copy.264" 2>/dev/null
.device/parvlc h264 "$D/p960.y4m" --qp 27 -o "$D/bound.264" 2>/dev/null
cmp "$D/copy.264" "$D/bound.264" && echo "960 frames: the copy and the binding write the same stream"
rm -f "$D/copy.264" "$D/bound.264"
for r in 1 2; do
  for up in copy bind; do
    echo "-- h264_intra_bench, upload $up, round $r"
    PARVLC_H264_UPLOAD=$up BATCHES=32,48 .device/h264_intra_bench 1920 1080 2>&1 | grep intra
  done
done
for r in 1 2 3; do
  wall_fresh "parvlc-old, 1920 frames, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27"
  for up in copy bind; do
    wall_fresh "parvlc upload $up, 1920 frames, run $r" "PARVLC_H264_UPLOAD=$up .device/parvlc h264 $D/p1920.y4m --qp 27"
  done
  wall_fresh "parvlc-old, 1920 frames, a slice per row, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27 --slice-rows 1"
  for up in copy bind; do
    wall_fresh "parvlc upload $up, 1920 frames, a slice per row, run $r" "PARVLC_H264_UPLOAD=$up .device/parvlc h264 $D/p1920.y4m --qp 27 --slice-rows 1"
  done
done
for up in copy bind; do
  echo "-- debug-logged, upload $up"
  PARVLC_H264_UPLOAD=$up debug_run "upload27-$up"
done
rm -rf "$D"
date -u
