#!/usr/bin/env bash
# Sixteenth pass, tenth call (2026-11-28): the H.264 encoder's first readback quota at 4
# bits a pixel, following each batch's longest stream down as well as up
# (`.device/parvlc`), against 2 bits a pixel, only ever raised (`.device/parvlc-old`:
# the sixteenth pass's code before it), alternating; 240 and 960 frames of the 1080p
# pan at the defaults, streams compared; then a debug-logged 240-frame run's first
# results.
# There, from the project root, .device carried: bash scripts/h200-quota16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start quota16
D=/tmp/parvlc-quota16
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
for n in 240 960; do
  h264_ab "$n" 3
done
for b in parvlc-old parvlc; do
  echo "-- $b, started $(date -u +%H:%M:%S.%N)"
  RUST_LOG=parvlc=debug .device/$b h264 "$D/p240.y4m" --qp 27 --force -o "$D/x.264" 2>&1 \
    | grep -E "GPU opened|read again|h264 batch of 16 at (0|16|32|48):" | cut -c 1-200
  echo "-- ended $(date -u +%H:%M:%S.%N)"
done
rm -rf "$D"
date -u
