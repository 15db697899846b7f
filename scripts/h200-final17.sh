#!/usr/bin/env bash
# Seventeenth pass, tenth call (2026-11-28): the pass's last build against 7749db9. The
# new build's front end gives each invocation its own copy of its block's edge line (no
# barrier between the line and the predictions) and its CLI defaults to --depth 32 with
# two batches in flight (about 64 pictures in flight at any depth). First the front end's
# GPU time (`h264_intra_bench 1920 1080`, --luma auto, batches of 16, 32 and 64, two
# rounds alternating); then `parvlc h264` at its defaults, QP 27, on 240, 960 and 1920
# frames of the 1080p pan (input and output in /dev/shm), runs alternating, every stream
# compared with the old build's byte for byte; then a slice per macroblock row.
# There, from the project root, .device carried: bash scripts/h200-final17.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final17
D=/dev/shm/parvlc-final17
mkdir -p "$D"
intra_bench_ab 2 auto 16,32,64
pan_lengths "$D"
for n in 240 960 1920; do
  h264_ab $n 3
done
rows_ab 2
rm -rf "$D"
date -u
