#!/usr/bin/env bash
# Seventeenth pass, second call (2026-11-28): the CAVLC bit count's second form
# (run_before from a table by the nonzero levels' mask, the levels after the first
# carrying suffixLength through a shift and a comparison) against the first call's
# straight-line form (h264_intra_bench-v1: benches/results/h200-2026-11-28-bits17.patch
# on 4c17c60) and the loop over the nonzero levels (EXP_BITS_LOOP=1 in an experiment
# build, timing only: benches/results/h200-2026-11-28-bits17b.patch on 5a826ed). `h264_intra_bench 1920 1080`, --luma auto, batches of 16 and 64, three rounds
# alternating. Then the CLI at its defaults on 960 frames of the 1080p pan (QP 27): the
# stream compared with the loop's, three timed runs, and one debug-logged run summarized
# (how long the coders waited for pictures, each batch's phases).
# There, from the project root, .device carried: bash scripts/h200-bits17b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start bits17b
D=/tmp/parvlc-bits17b
mkdir -p "$D"
for r in 1 2 3; do
  for b in "v1 EXP_BITS_LOOP=0" "new EXP_BITS_LOOP=1" "new EXP_BITS_LOOP=0"; do
    set -- $b
    bin=.device/h264_intra_bench; [ "$1" = v1 ] && bin=.device/h264_intra_bench-v1
    echo "-- $b round $r"
    PARVLC_EXP_H264=$2 LUMA=auto BATCHES=16,64 $bin 1920 1080 2>&1 | grep intra
  done
done
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
PARVLC_EXP_H264=EXP_BITS_LOOP=1 .device/parvlc h264 "$D/p960.y4m" --qp 27 --force -o "$D/loop.264" 2>/dev/null
.device/parvlc h264 "$D/p960.y4m" --qp 27 --force -o "$D/new.264" 2>/dev/null
cmp "$D/loop.264" "$D/new.264" && echo "960 frames: both counts write the same stream ($(stat -c %s "$D/new.264") bytes)"
for r in 1 2 3; do
  wall "960 frames defaults, run $r" ".device/parvlc h264 $D/p960.y4m --qp 27 --force -o $D/x.264"
  cmp -s "$D/x.264" "$D/loop.264" || echo "OTHER BYTES"
done
wall "cat of the 960 frames' Y4M" "cat $D/p960.y4m"
wall "cp of the stream" "cp $D/new.264 $D/copy.264"
echo "-- debug-logged run, started $(date -u +%H:%M:%S.%N)"
RUST_LOG=parvlc=debug .device/parvlc h264 "$D/p960.y4m" --qp 27 --force -o "$D/x.264" 2> "$D/log.txt"
echo "-- ended $(date -u +%H:%M:%S.%N)"
grep -vE "h264 (coder waited|batch of)" "$D/log.txt" | cut -c 1-200 | head -30
batch_phases "$D/log.txt"
rm -rf "$D"
date -u
