#!/usr/bin/env bash
# Seventeenth pass, eleventh call (2026-11-28): the pass's last build (its CLI defaults to
# --depth 32 with two batches in flight; the front end as at 7749db9, the per-invocation
# edge lines of the tenth call dropped: benches/results/h200-2026-11-28-line17.patch made
# the front end slower) against 7749db9 (depth 16, four in flight). `parvlc h264` at
# its defaults, QP 27, on 240, 960 and 1920 frames of the 1080p pan (input and output in
# /dev/shm), three runs each alternating, every stream compared with the old build's
# byte for byte; then a slice per macroblock row.
# There, from the project root, .device carried: bash scripts/h200-shape17.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start shape17
D=/dev/shm/parvlc-shape17
mkdir -p "$D"
pan_lengths "$D"
for n in 240 960 1920; do
  h264_ab $n 3
done
rows_ab 2
rm -rf "$D"
date -u
