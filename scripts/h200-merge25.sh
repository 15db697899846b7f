#!/usr/bin/env bash
# The I_16x16 luma and the chroma as one instruction stream (chroma on the invocations
# 16..23 that computed a copy of the luma): .device/parvlc-old and h264_intra_bench-old
# (db0dc0c / 192e525) against this build. Streams compared first (960 frames of the 1080p
# pan; 240 with a slice per row; 240 at --luma 16x16); the front end's GPU time, two
# rounds alternating, --luma auto and 16x16, batches of 16, 32 and 64; then the CLI,
# three rounds alternating, 960 and 1920 frames at QP 27 (one slice and a slice per row),
# to /dev/shm.
# There, from the project root, .device carried: bash scripts/h200-merge25.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start merge25
unpack_device
D=/dev/shm/parvlc-merge25
mkdir -p "$D"
pan_lengths "$D"
for b in parvlc-old parvlc; do
  .device/$b h264 "$D/p960.y4m" --qp 27 -o "$D/$b.264" --force 2>&1 | tail -1
  .device/$b h264 "$D/p240.y4m" --qp 27 --slice-rows 1 -o "$D/$b-rows.264" --force 2>/dev/null
  .device/$b h264 "$D/p240.y4m" --qp 27 --luma 16x16 -o "$D/$b-16.264" --force 2>/dev/null
  .device/$b h264 "$D/p240.y4m" --qp 45 -o "$D/$b-45.264" --force 2>/dev/null
done
cmp "$D/parvlc-old.264" "$D/parvlc.264" && cmp "$D/parvlc-old-rows.264" "$D/parvlc-rows.264" \
  && cmp "$D/parvlc-old-16.264" "$D/parvlc-16.264" && cmp "$D/parvlc-old-45.264" "$D/parvlc-45.264" \
  && echo "both builds write the same streams (960 frames; 240 a slice per row, 16x16, QP 45)"
intra_bench_ab 2 "auto 16x16" 16,32,64
for r in 1 2 3; do
  for n in 960 1920; do
    for b in parvlc-old parvlc; do
      wall "$b, $n frames, run $r" ".device/$b h264 $D/p$n.y4m --qp 27 -o $D/x.264 --force"
    done
  done
  for b in parvlc-old parvlc; do
    wall "$b, 1920 frames, a slice per row, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --slice-rows 1 -o $D/x.264 --force"
  done
done
rm -rf "$D"
date -u
