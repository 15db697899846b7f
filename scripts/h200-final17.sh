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
S=/dev/shm/parvlc-final17
mkdir -p "$S"
intra_bench_ab 2 auto 16,32,64
pan_y4m "$S/p240.y4m"
pan_y4m_times "$S/p240.y4m" "$S/p960.y4m" 4
pan_y4m_times "$S/p240.y4m" "$S/p1920.y4m" 8
for n in 240 960 1920; do
  .device/parvlc-old h264 "$S/p$n.y4m" --qp 27 --force -o "$S/old$n.264" 2>/dev/null
  .device/parvlc h264 "$S/p$n.y4m" --qp 27 --force -o "$S/new$n.264" 2>/dev/null
  cmp "$S/old$n.264" "$S/new$n.264" && echo "$n frames: both builds write the same stream ($(stat -c %s "$S/new$n.264") bytes)"
  for r in 1 2 3; do
    for b in parvlc-old parvlc; do
      wall "$n frames defaults, $b, run $r" ".device/$b h264 $S/p$n.y4m --qp 27 --force -o $S/x.264"
      cmp -s "$S/x.264" "$S/old$n.264" || echo "OTHER BYTES"
    done
  done
done
.device/parvlc-old h264 "$S/p1920.y4m" --qp 27 --force --slice-rows 1 -o "$S/rows.264" 2>/dev/null
for r in 1 2; do
  for b in parvlc-old parvlc; do
    wall "1920 frames, a slice per row, $b, run $r" ".device/$b h264 $S/p1920.y4m --qp 27 --force --slice-rows 1 -o $S/x.264"
    cmp -s "$S/x.264" "$S/rows.264" || echo "OTHER BYTES"
  done
done
rm -rf "$S"
date -u
