#!/usr/bin/env bash
# Fifteenth pass (2026-11-28), this build: sixty 4K RGB frames (a vertical pan), files
# in and out, depth 8, Part 1 and --ht, three runs each; the last frame's codestream
# decoded by opj_decompress to its source first.
# There, from the project root, .device carried (staged with --openjpeg):
#   bash scripts/h200-seq60-15.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start seq60-15
D=/tmp/parvlc-seq60
mkdir -p "$D/out"
pan_frames "$D" 60
for mode in "" "--ht"; do
  .device/parvlc j2k "$D"/in/*.ppm -o "$D/out" --force --depth 8 $mode 2>&1 | tail -1
  opj_decompress -i "$D/out/f059.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/in/f059.ppm" && echo "opj_decompress gives the last frame's source ($mode)"
  for r in 1 2 3; do
    wall "60 frames $mode depth 8, run $r" ".device/parvlc j2k $D/in/*.ppm -o $D/out --force --depth 8 $mode"
  done
done
rm -rf "$D"
date -u
