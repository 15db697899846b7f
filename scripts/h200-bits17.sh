#!/usr/bin/env bash
# Seventeenth pass, first call (2026-11-28): the CAVLC bit count of the intra front end
# as straight-line code over the sixteen positions against the sixteenth pass's loop over
# the nonzero levels (EXP_BITS_LOOP=1 in an experiment build, timing only; patch
# benches/results/h200-2026-11-28-bits17.patch on 4c17c60). `h264_intra_bench 1920 1080`, --luma
# auto, batches of 16 and 64, three rounds alternating; then the CLI at its defaults on 240
# and 960 frames of the 1080p pan (QP 27), the two walks' streams compared byte for byte
# first and every run's after.
# There, from the project root, .device carried: bash scripts/h200-bits17.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start bits17
D=/tmp/parvlc-bits17
mkdir -p "$D"
for r in 1 2 3; do
  for exp in EXP_BITS_LOOP=1 EXP_BITS_LOOP=0; do
    echo "-- $exp round $r"
    PARVLC_EXP_H264=$exp LUMA=auto BATCHES=16,64 .device/h264_intra_bench 1920 1080 2>&1 | grep intra
  done
done
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
for n in 240 960; do
  PARVLC_EXP_H264=EXP_BITS_LOOP=1 .device/parvlc h264 "$D/p$n.y4m" --qp 27 --force -o "$D/loop$n.264" 2>/dev/null
  .device/parvlc h264 "$D/p$n.y4m" --qp 27 --force -o "$D/new$n.264" 2>/dev/null
  cmp "$D/loop$n.264" "$D/new$n.264" && echo "$n frames: both walks write the same stream ($(stat -c %s "$D/new$n.264") bytes)"
  for r in 1 2 3; do
    for exp in EXP_BITS_LOOP=1 EXP_BITS_LOOP=0; do
      wall "$n frames defaults, $exp, run $r" "PARVLC_EXP_H264=$exp .device/parvlc h264 $D/p$n.y4m --qp 27 --force -o $D/x.264"
      cmp -s "$D/x.264" "$D/loop$n.264" || echo "OTHER BYTES"
    done
  done
done
rm -rf "$D"
date -u
