#!/usr/bin/env bash
# Sixteenth pass, eleventh call (2026-11-28): where the front end's GPU time goes after
# this pass's changes, for the next one. An experiment build of the pass's last code
# (patch benches/results/h200-2026-11-28-rest16.patch, timing only) leaving out, one at a
# time and all together: the CAVLC bit count's walk (EXP_CHEAP_BITS), the ninth mode's
# second round (EXP_ONE_ROUND), the SATD of the predictions (EXP_NO_SATD), and the
# barrier and comparisons that pick a block's winner (EXP_NO_WINNER: candidate 0 wins).
# `h264_intra_bench 1920 1080`, --luma auto, batches of 16 and 64.
# There, from the project root, .device carried: bash scripts/h200-rest16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start rest16
for exp in EXP_CHEAP_BITS=0 EXP_CHEAP_BITS=1 EXP_ONE_ROUND=1 EXP_NO_SATD=1 EXP_NO_WINNER=1 \
  EXP_CHEAP_BITS=1,EXP_ONE_ROUND=1,EXP_NO_SATD=1,EXP_NO_WINNER=1; do
  echo "-- $exp"
  PARVLC_EXP_H264=$exp LUMA=auto BATCHES=16,64 .device/h264_intra_bench-exp 1920 1080 2>&1 | grep "slices one"
done
for luma in 16x16 4x4; do
  echo "-- luma $luma"
  LUMA=$luma BATCHES=16,64 .device/h264_intra_bench-exp 1920 1080 2>&1 | grep "slices one"
done
date -u
