#!/usr/bin/env bash
# The twenty-eighth pass's start with the readbacks made ahead after the pipelines (.device/parvlc) against c613176 (.device/parvlc-old):
# each coder's first two batches submit their front end before recording CAVLC, the
# pipelines built beside the first batch's buffers and upload, the reconstruction
# written only for --recon. Streams compared first (960 frames of the 1080p pan at QP
# 27: one slice, a slice per row, and with --recon both the stream and the
# reconstruction); then three rounds alternating, each run's previous output removed
# outside the timing: 1920 frames one slice and a slice per row, 960 frames one slice,
# to /dev/shm; a debug-logged run of each build.
# There, from the project root, .device carried: bash scripts/h200-start28c.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start start28c
unpack_device
D=/dev/shm/parvlc-start28c
mkdir -p "$D"
pan_lengths "$D"
same_streams
same_streams --slice-rows 1
for b in parvlc-old parvlc; do
  .device/$b h264 "$D/p960.y4m" --qp 27 -o "$D/$b.264" --recon "$D/$b.yuv" 2>/dev/null
done
cmp "$D/parvlc-old.264" "$D/parvlc.264" && cmp "$D/parvlc-old.yuv" "$D/parvlc.yuv" \
  && echo "960 frames --recon: the same stream and reconstruction, $(stat -c %s "$D/parvlc.yuv") bytes"
rm -f "$D"/parvlc*.264 "$D"/parvlc*.yuv
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall_fresh "$b, 1920 frames, run $r" ".device/$b h264 $D/p1920.y4m --qp 27"
    wall_fresh "$b, 1920 frames, a slice per row, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --slice-rows 1"
    wall_fresh "$b, 960 frames, run $r" ".device/$b h264 $D/p960.y4m --qp 27"
  done
done
cp .device/parvlc-old "$D/old-bin" && cp .device/parvlc .device/parvlc-new
cp "$D/old-bin" .device/parvlc && debug_run start28c-old-debug
cp .device/parvlc-new .device/parvlc && debug_run start28c-debug
rm -rf "$D"
date -u
