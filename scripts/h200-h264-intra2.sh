#!/usr/bin/env bash
# Second H200 run of the GPU intra front end (after the I_NxN blocks went in waves of
# their own): the front end's GPU time by timestamps (examples/h264_intra_bench, batches
# of 16 1080p pictures), then 240 frames of the 1080p pan at QP 27 with `--luma auto` on
# the GPU front end, compared with `cmp` to the CPU front end's stream.
# There, from the project root, .device carried: bash scripts/h200-h264-intra2.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264-intra2
B=.device/parvlc
D=/tmp/parvlc-h264
mkdir -p "$D"
for luma in auto 16x16; do
  LUMA=$luma BATCHES=16 RUNS=2 .device/h264_intra_bench 1920 1080
done
pan_y4m "$D/pan.y4m"
h264_pan "auto, CPU front end" -o "$D/cpu.264" --luma auto --front-end cpu --depth 8
for r in 1 2; do
  h264_pan "auto, GPU front end, depth 16, run $r" -o "$D/gpu.264" --luma auto --depth 16
  cmp "$D/gpu.264" "$D/cpu.264" && echo "auto: GPU front end bytes == CPU front end bytes"
done
h264_pan "auto, GPU front end, depth 8" -o "$D/gpu8.264" --luma auto --depth 8
cmp "$D/gpu8.264" "$D/cpu.264" && echo "depth 8: the same bytes"
date -u
