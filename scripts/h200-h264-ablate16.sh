#!/usr/bin/env bash
# Sixteenth pass, first call (2026-11-28): where the H.264 intra front end's GPU time
# goes, and what batch shape the CLI should run.
#   A. `h264_intra_bench` (GPU time by timestamps, 1080p noise pan, QP 27), batches of
#      16, 64 and 128, for --luma auto, 4x4 and 16x16, and for an experiment build's
#      ablations (patch benches/results/h200-2026-11-28-ablate16.patch, timing only:
#      EXP_CHEAP_BITS counts levels instead of CAVLC bits, EXP_CANDS=1 codes one
#      candidate a block instead of five).
#   B. The CLI on 960 frames of the 1080p pan (the 240 of scripts/h264_rd.py, four
#      times), QP 27, batch (--depth) and batches in flight (PARVLC_H264_CODERS), each
#      stream compared with the default shape's.
# There, from the project root, .device carried: bash scripts/h200-h264-ablate16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264-ablate16
echo "== A. front end GPU time"
for luma in auto 4x4 16x16; do
  LUMA=$luma BATCHES=16,64,128 .device/h264_intra_bench 1920 1080 2>&1 | grep intra
done
for exp in EXP_CHEAP_BITS=1 EXP_CANDS=1 EXP_CHEAP_BITS=1,EXP_CANDS=1; do
  echo "-- $exp"
  PARVLC_EXP_H264=$exp LUMA=auto BATCHES=16,64,128 .device/h264_intra_bench 1920 1080 2>&1 | grep intra
done
echo "== B. CLI, 960 frames"
B=.device/parvlc
D=/tmp/parvlc-ablate16
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/pan.y4m" 4
rm "$D/p240.y4m"
$B h264 "$D/pan.y4m" --qp 27 --force -o "$D/ref.264" 2>/dev/null
ls -l "$D/ref.264" | awk '{print "default stream bytes", $5}'
for r in 1 2; do
  for shape in "16 4" "32 2" "32 3" "64 1" "64 2" "128 1"; do
    set -- $shape
    wall "960 frames depth $1 coders $2 run $r" "PARVLC_H264_CODERS=$2 $B h264 $D/pan.y4m --qp 27 --force -o $D/x.264 --depth $1"
    cmp -s "$D/x.264" "$D/ref.264" || echo "depth $1 coders $2: OTHER BYTES"
  done
done
RUST_LOG=parvlc=debug PARVLC_H264_CODERS=2 $B h264 "$D/pan.y4m" --qp 27 --force -o "$D/x.264" --depth 64 2>&1 \
  | grep -E "h264 batch|GPU opened|coder waited" | head -30 | cut -c 1-220
rm -rf "$D"
date -u
