#!/usr/bin/env bash
# Experiment: the chained front end's waiting, each invocation spinning on its own words
# (.device/h264_intra_bench-spin, patch h200-2026-11-29-spin25-exp.patch, which breaks
# lavapipe) against the lockstep rounds of 937ae2f (.device/h264_intra_bench), GPU time at
# 1080p, batches of 16, 32 and 64, three rounds alternating.
# There, from the project root, .device carried: bash scripts/h200-spin25.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start spin25
unpack_device
for r in 1 2 3; do
  for b in h264_intra_bench h264_intra_bench-spin; do
    echo "-- $b round $r"
    BATCHES=16,32,64 .device/$b 1920 1080 2>&1 | grep intra
  done
done
date -u
