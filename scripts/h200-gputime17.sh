#!/usr/bin/env bash
# Seventeenth pass, fifth call (2026-11-28): whether the CLI waits on the GPU. Trace-logged
# runs of `parvlc h264` at QP 27 on 1920 frames of the 1080p pan (each batch's GPU time
# of the front end and of CAVLC by timestamps), at --depth 16 with 4 batches in flight
# and --depth 64 with 3, summarized: those GPU times' sum against the run's wall clock.
# Then a run at the defaults with `nvidia-smi dmon` sampling the GPU's use beside it.
# There, from the project root, .device carried: bash scripts/h200-gputime17.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start gputime17
D=/tmp/parvlc-gputime17
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p1920.y4m" 8
rm "$D/p240.y4m"
for shape in "16 4" "64 3"; do
  set -- $shape
  echo "-- trace-logged, depth $1, $2 in flight"
  PARVLC_H264_CODERS=$2 RUST_LOG=parvlc=trace /usr/bin/time -f "wall %e s user %U s sys %S s" \
    .device/parvlc h264 "$D/p1920.y4m" --qp 27 --force --depth "$1" -o "$D/x.264" 2> "$D/log.txt"
  tail -1 "$D/log.txt"
  gpu_batch_times "$D/log.txt"
done
nvidia-smi dmon -s u -d 1 > "$D/dmon.txt" 2>&1 &
sleep 1.5
wall "1920 frames, defaults (dmon beside)" ".device/parvlc h264 $D/p1920.y4m --qp 27 --force -o $D/x.264"
sleep 1.5
kill %1
cat "$D/dmon.txt"
rm -rf "$D"
date -u
