#!/usr/bin/env bash
# Seventeenth pass, seventh call (2026-11-28): the CLI's batches on a time line.
# Debug-logged runs of `parvlc h264` at QP 27 on 1920 frames of the 1080p pan (input and
# output in /dev/shm): --luma 16x16 (little GPU work) with 4 and with 8 batches of 16 in
# flight, and --luma auto with 4, twice each; the second run's log kept whole
# ($OUT/timeline17-*.log: benches/results/logs17/, gzipped) for scripts/h264_timeline.py
# (benches/results/h200-2026-11-28-timeline17-summary.txt).
# There, from the project root, .device carried: bash scripts/h200-timeline17.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start timeline17
S=/dev/shm/parvlc-timeline17
mkdir -p "$S"
pan_y4m "$S/p240.y4m"
pan_y4m_times "$S/p240.y4m" "$S/p1920.y4m" 8
rm "$S/p240.y4m"
for run in "16x16 4" "16x16 8" "auto 4" "16x16 4" "16x16 8" "auto 4"; do
  set -- $run
  echo "-- luma $1, $2 in flight, started $(date -u +%H:%M:%S.%N)"
  PARVLC_H264_CODERS=$2 RUST_LOG=parvlc=debug /usr/bin/time -f "wall %e s user %U s sys %S s" \
    .device/parvlc h264 "$S/p1920.y4m" --qp 27 --force --luma "$1" -o "$S/x.264" 2> "$OUT/timeline17-$1-$2.log"
  tail -2 "$OUT/timeline17-$1-$2.log"
done
rm -rf "$S"
date -u
