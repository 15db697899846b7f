#!/usr/bin/env bash
# Seventeenth pass, twelfth call (2026-11-28): the intra front end with 32 invocations a
# macroblock (a macroblock took a whole warp of 32 already), the I_NxN luma's nine modes
# predicted at once on sixteen invocations a block, against 2ef257f's sixteen (eight a
# block, the ninth mode a second round). `h264_intra_bench 1920 1080`, --luma auto,
# batches of 16, 32 and 64, two rounds alternating; then `parvlc h264` at its defaults,
# QP 27, on 960 and 1920 frames of the 1080p pan (input and output in /dev/shm), three
# runs each alternating, every stream compared with the old build's byte for byte.
# There, from the project root, .device carried: bash scripts/h200-lanes17.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start lanes17
D=/dev/shm/parvlc-lanes17
mkdir -p "$D"
intra_bench_ab 2 auto 16,32,64
pan_lengths "$D"
for n in 960 1920; do
  h264_ab $n 3
done
rm -rf "$D"
date -u
