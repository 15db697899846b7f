#!/usr/bin/env bash
# Seventeenth pass, ninth call (2026-11-28): the CLI's batch shape again, now that a
# batch's results cost the host less (7749db9). `parvlc h264` at QP 27 on 1920 and 960
# frames of the 1080p pan (input and output in /dev/shm), --depth 16, 32, 48 and 64 with
# 2-4 batches in flight (PARVLC_H264_CODERS), two runs each, every stream compared with
# the defaults' byte for byte; then a slice per macroblock row.
# There, from the project root, .device carried: bash scripts/h200-depth17b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start depth17b
D=/dev/shm/parvlc-depth17b
mkdir -p "$D"
pan_lengths "$D"
rm "$D/p240.y4m"
for n in 1920 960; do
  .device/parvlc h264 "$D/p$n.y4m" --qp 27 --force -o "$D/ref$n.264" 2>/dev/null
done
for shape in "16 4" "32 2" "32 3" "32 4" "48 3" "64 2" "64 3"; do
  shape_runs 1920 $shape
done
for shape in "16 4" "32 3" "32 4" "64 2"; do
  shape_runs 960 $shape
done
.device/parvlc h264 "$D/p1920.y4m" --qp 27 --force --slice-rows 1 -o "$D/rows.264" 2>/dev/null
for shape in "16 4" "32 4" "64 2"; do
  shape_runs 1920 $shape --slice-rows 1
  cmp -s "$D/x.264" "$D/rows.264" || echo "OTHER BYTES (rows)"
done
rm -rf "$D"
date -u
