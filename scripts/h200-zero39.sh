#!/usr/bin/env bash
# Issue 18 (whole compress at 1.3x nvCOMP ANS): how cuvle's output is zeroed, and the
# histogram's layout of its copies. One experiment build (.device/parvlc-x) with switches:
# PARVLC_ZERO = clear (clear_buffer of the whole pooled buffer, the build before) |
# clear-range (clear_buffer of the stream's bytes) | kernel (the `zero` stage);
# PARVLC_HIST_LAYOUT = major (the build before) | interleaved; PARVLC_HIST_COPIES.
# `parvlc bench --backend wgpu,cuda` (the high state, as nvCOMP runs) at 1 GiB, 2, 4.5
# and 7 bits; every output is checked before it is timed.
# There, from the project root, .device carried: bash scripts/h200-zero39.sh VARIANT...
# (VARIANT: ZERO:LAYOUT:COPIES, e.g. clear:major:4)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start zero39
unpack_device
for v in "$@"; do
  IFS=: read -r zero layout copies <<< "$v"
  echo "== PARVLC_ZERO=$zero PARVLC_HIST_LAYOUT=$layout PARVLC_HIST_COPIES=$copies"
  PARVLC_ZERO=$zero PARVLC_HIST_LAYOUT=$layout PARVLC_HIST_COPIES=$copies timeout 170 \
    .device/parvlc-x bench --backend wgpu,cuda --sizes 1073741824 --entropies 2,4.5,7 \
    --strategies decoupled --no-baselines --cpu-max 0 --runs 3 2>&1 |
    grep -E "^  cuvle-decoupled  " | grep -E "encode|compress"
done
date -u
