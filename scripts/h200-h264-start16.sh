#!/usr/bin/env bash
# Sixteenth pass, sixth call (2026-11-28): where an H.264 run's first and last moments
# go. Debug-logged runs of the CLI at its defaults on 240 frames of the 1080p pan (QP
# 27), the process's start time printed before it, every log line kept but the
# per-picture ones; twice (the second with the pipeline cache warm).
# There, from the project root, .device carried: bash scripts/h200-h264-start16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264-start16
D=/tmp/parvlc-start16
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
for r in 1 2 3; do
  echo "-- run $r, started $(date -u +%H:%M:%S.%N)"
  RUST_LOG=parvlc=debug .device/parvlc h264 "$D/p240.y4m" --qp 27 --force -o "$D/x.264" 2>&1 \
    | grep -vE "^\s*$" | cut -c 1-200 | head -60
  echo "-- ended $(date -u +%H:%M:%S.%N)"
done
wall "240 frames defaults" ".device/parvlc h264 $D/p240.y4m --qp 27 --force -o $D/x.264"
rm -rf "$D"
date -u
