#!/usr/bin/env bash
# Fifteenth pass (2026-11-28): the debug log of thirty 4K frames at depth 8 (Part 1, then
# --ht), this build, as lines with their times: each frame's upload, record and submit
# (by phase), readback and tier-2, to see where the frames wait.
# There, from the project root, .device carried: bash scripts/h200-timeline15.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start timeline15
D=/tmp/parvlc-timeline15
mkdir -p "$D/out"
pan_frames "$D" 30
for mode in "" "--ht"; do
  echo "-- thirty 4K frames, depth 8 $mode"
  RUST_LOG=parvlc=debug .device/parvlc j2k "$D"/in/*.ppm -o "$D/out" --force --depth 8 $mode 2>&1 \
    | grep -vE "pipeline .* built" | cut -c 15-23,30-250
done
rm -rf "$D"
date -u
