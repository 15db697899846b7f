#!/usr/bin/env bash
# Sixteenth pass, third call (2026-11-28): why larger H.264 batches lose in the CLI
# though the front end codes them faster by GPU time.
#   A. Debug-logged runs (the batch phases; GPU timestamps only in the trace log now) on
#      960 frames of the 1080p pan, QP 27: the default shape (--depth 16, four batches
#      in flight) and --depth 64 with one and two in flight (PARVLC_H264_CODERS).
#   B. The GPU's clocks while `h264_intra_bench` runs (nvidia-smi sampled every 50 ms),
#      and the bench with 3 and with 20 runs (a warm-up question).
# There, from the project root, .device carried: bash scripts/h200-h264-host16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264-host16
D=/tmp/parvlc-host16
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
rm "$D/p240.y4m"
echo "== A. batch phases"
for shape in "16 4" "64 1" "64 2"; do
  set -- $shape
  echo "-- depth $1, $2 in flight"
  wall "960 frames depth $1 coders $2" "PARVLC_H264_CODERS=$2 .device/parvlc h264 $D/p960.y4m --qp 27 --force -o $D/x.264 --depth $1"
  RUST_LOG=parvlc=debug PARVLC_H264_CODERS=$2 .device/parvlc h264 "$D/p960.y4m" --qp 27 --force -o "$D/x.264" --depth $1 2>&1 \
    | grep -E "h264 batch|GPU opened|coder waited|wrote|done" | sed -n '1,4p;14,22p' | cut -c 1-260
done
rm -rf "$D"
echo "== B. clocks during the bench"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw --format=csv,noheader -lms 50 > /tmp/clocks.txt &
SMI=$!
sleep 0.3
LUMA=auto BATCHES=16,64 RUNS=3 .device/h264_intra_bench 1920 1080 2>&1 | grep "slices one"
LUMA=auto BATCHES=16,64 RUNS=20 .device/h264_intra_bench 1920 1080 2>&1 | grep "slices one"
kill $SMI
awk -F', ' '{print $2, $3, $4, $5}' /tmp/clocks.txt | sort | uniq -c | sort -rn | head -12
date -u
