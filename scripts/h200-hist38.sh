#!/usr/bin/env bash
# Issue 18 (whole compress at 1.3x nvCOMP ANS): the histogram's copies of its counts,
# interleaved so that each lane of a subgroup counts into its own bank. An experiment
# build reading PARVLC_HIST_COPIES (4: the layout before, but interleaved; 8, 16, 32);
# `parvlc bench --backend wgpu,cuda` (the high state, as nvCOMP runs) at 1 GiB, 2, 4.5
# and 7 bits, every output checked before it is timed: the histogram's time is
# 1/compress - 1/encode (kernel only), and the compress in nvCOMP's scope is the issue's.
# There, from the project root, .device carried: bash scripts/h200-hist38.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start hist38
unpack_device
for round in 1 2; do
  for c in 4 32 16 8; do
    [ "$round" = 2 ] && [ "$c" = 8 ] && continue
    echo "== round $round, COPIES=$c"
    PARVLC_HIST_COPIES=$c timeout 150 .device/parvlc-hist bench --backend wgpu,cuda --sizes 1073741824 \
      --entropies 2,4.5,7 --strategies decoupled --no-baselines --cpu-max 0 --runs 3 2>&1 |
      grep -E "^  cuvle-decoupled  " | grep -E "encode|compress"
  done
done
date -u
