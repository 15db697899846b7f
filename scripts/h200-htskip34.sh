#!/usr/bin/env bash
# Thirty-fourth pass (2026-11-30), an attribution, not a result: the workgroup-per-block
# HT cleanup kernel in an experiment build (.device/parvlc-exp, patch
# benches/results/h200-2026-11-30-htskip34.patch) whose override EXP_SKIP leaves phases
# out (1: MagSgn stuffing; 2: VLC stuffing and MEL; 4: placing the bits in the rounds; 8:
# coding the pairs), its GPU time in `bench j2k --sizes 4K` with the output unchecked
# (it is wrong wherever a phase is skipped).
# There, from the project root, .device carried:  bash scripts/h200-htskip34.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start htskip34
unpack_device
for k in 0 1 2 3 4 8 12 15 0; do
  echo -n "skip $k: "; PARVLC_EXP_HT_SKIP=$k .device/parvlc-exp bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2>&1 | grep EXP
done
date -u
