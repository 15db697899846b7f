#!/usr/bin/env bash
# The GPU intra front end's batch size on the H200: the front end's GPU time by
# timestamps for batches of 16, 32 and 64 1080p pictures (examples/h264_intra_bench,
# `auto`), then 240 frames of the 1080p pan at QP 27, `--luma auto`, at --depth 16, 32 and
# 64, each stream compared with the depth-16 one.
# There, from the project root, .device carried: bash scripts/h200-h264-batches.sh
# (2026-11-28: its one call ended with the machine not answering, and nothing came back;
# the session had no device time left to repeat it.)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264-batches
B=.device/parvlc
D=/tmp/parvlc-h264
mkdir -p "$D"
LUMA=auto BATCHES=16,32,64 RUNS=2 .device/h264_intra_bench 1920 1080
pan_y4m "$D/pan.y4m"
for depth in 16 32 64; do
  /usr/bin/time -f "auto, depth $depth	wall %e s	user %U s	sys %S s	peak %M KiB" \
    $B h264 "$D/pan.y4m" --qp 27 --force -o "$D/d$depth.264" --luma auto --depth $depth 2>&1 | tail -2
  cmp "$D/d$depth.264" "$D/d16.264" && echo "depth $depth: the depth-16 bytes"
done
date -u
