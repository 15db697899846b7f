#!/usr/bin/env bash
# Seventeenth pass, eighth call (2026-11-28): a batch's results on the host. The build
# before (.device/parvlc-old) against the one that copies a readback's parts on all cores
# and cuts a picture's slice out of its stream with one copy (.device/parvlc):
# `parvlc h264` at QP 27 on 1920 and 960 frames of the 1080p pan (input and output in
# /dev/shm), streams compared byte for byte, runs alternating; at the defaults and with
# 6 and 8 batches of 16 in flight (PARVLC_H264_CODERS), and --luma 16x16 (little GPU
# work); then a debug-logged run of the new build at the defaults, for
# scripts/h264_timeline.py (kept gzipped in benches/results/logs17/, summarized in
# h200-2026-11-28-timeline17-summary.txt).
# There, from the project root, .device carried: bash scripts/h200-finish17.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start finish17
S=/dev/shm/parvlc-finish17
mkdir -p "$S"
pan_y4m "$S/p240.y4m"
pan_y4m_times "$S/p240.y4m" "$S/p960.y4m" 4
pan_y4m_times "$S/p240.y4m" "$S/p1920.y4m" 8
rm "$S/p240.y4m"
for n in 1920 960; do
  .device/parvlc-old h264 "$S/p$n.y4m" --qp 27 --force -o "$S/old$n.264" 2>/dev/null
  .device/parvlc h264 "$S/p$n.y4m" --qp 27 --force -o "$S/new$n.264" 2>/dev/null
  cmp "$S/old$n.264" "$S/new$n.264" && echo "$n frames: both builds write the same stream ($(stat -c %s "$S/new$n.264") bytes)"
done
for r in 1 2; do
  for coders in 4 6 8; do
    for b in parvlc-old parvlc; do
      wall "1920 frames, $coders in flight, $b, run $r" \
        "PARVLC_H264_CODERS=$coders .device/$b h264 $S/p1920.y4m --qp 27 --force -o $S/x.264"
      cmp -s "$S/x.264" "$S/old1920.264" || echo "OTHER BYTES"
    done
  done
  for b in parvlc-old parvlc; do
    wall "960 frames, defaults, $b, run $r" ".device/$b h264 $S/p960.y4m --qp 27 --force -o $S/x.264"
    cmp -s "$S/x.264" "$S/old960.264" || echo "OTHER BYTES"
    wall "1920 frames, luma 16x16, $b, run $r" ".device/$b h264 $S/p1920.y4m --qp 27 --force --luma 16x16 -o $S/x.264"
  done
done
RUST_LOG=parvlc=debug .device/parvlc h264 "$S/p1920.y4m" --qp 27 --force -o "$S/x.264" 2> "$OUT/finish17-new.log"
python3 scripts/h264_timeline.py "$OUT/finish17-new.log"
rm -rf "$S"
date -u
