#!/usr/bin/env bash
# The GPU intra front end with I_NxN (h264/intra) on the GPU machine: 240 frames of the
# 1080p pan (scripts/h264_rd.py `write_pan`) at QP 27, `--luma auto` on the CPU front
# end (the reference bytes) and on the GPU front end (compared with them), `--luma 16x16`
# on the GPU, one slice and a slice per row; then the front end's GPU time by timestamps
# (examples/h264_intra_bench, batches of 16 1080p pictures).
# Here: ../shared/device/stage, then the example copied in as .device/h264_intra_bench.
# There, from the project root, .device carried: bash scripts/h200-h264-intra.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264-intra
B=.device/parvlc
D=/tmp/parvlc-h264
mkdir -p "$D"
pan_y4m "$D/pan.y4m"
h264_pan "auto, CPU front end" -o "$D/cpu.264" --luma auto --front-end cpu --depth 8
for r in 1 2; do
  h264_pan "auto, GPU front end, run $r" -o "$D/gpu.264" --luma auto --depth 8
  cmp "$D/gpu.264" "$D/cpu.264" && echo "auto: GPU front end bytes == CPU front end bytes"
done
h264_pan "auto, GPU front end, depth 16" -o "$D/gpu16.264" --luma auto --depth 16
cmp "$D/gpu16.264" "$D/cpu.264" && echo "depth 16: the same bytes"
for r in 1 2; do
  h264_pan "16x16, GPU front end, run $r" -o "$D/i16.264" --luma 16x16 --depth 8
done
h264_pan "auto, slice per row, CPU front end" -o "$D/cpu-rows.264" --luma auto --slice-rows 1 --front-end cpu --depth 8
h264_pan "auto, slice per row, GPU front end" -o "$D/gpu-rows.264" --luma auto --slice-rows 1 --depth 8
cmp "$D/gpu-rows.264" "$D/cpu-rows.264" && echo "slice per row: GPU front end bytes == CPU front end bytes"
ls -l "$D"/*.264
echo "== the debug log's batch timings, auto, GPU front end"
RUST_LOG=parvlc::h264=debug $B h264 "$D/pan.y4m" --qp 27 --force -o "$D/gpu.264" --luma auto 2>&1 \
  | grep -E "batch of" | cut -c 25-400 | tail -6
for luma in auto 16x16; do
  LUMA=$luma BATCHES=16 RUNS=2 .device/h264_intra_bench 1920 1080
done
date -u
