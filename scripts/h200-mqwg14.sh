#!/usr/bin/env bash
# Coders per workgroup of the three-kernel tier-1's MQ kernel (one invocation per
# code-block): an experiment build (.device/parvlc-mqwg, PARVLC_EXP_MQ_WG, the patch
# benches/results/h200-2026-11-28-mqwg14.patch) at 64 (the default), 32, 16 and 8,
# alternating twice: fewer coders in a warp, fewer blocks' branches it runs in lockstep.
# `bench j2k` checks every GPU result against the CPU tier-1 before timing it.
# There, from the project root, .device carried: bash scripts/h200-mqwg14.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start mqwg14
for r in 1 2; do
  for wg in 64 32 16 8; do
    echo "== MQ coders per workgroup $wg, round $r"
    PARVLC_EXP_MQ_WG=$wg .device/parvlc-mqwg bench j2k --sizes 4K,2K --no-openjpeg --no-one-core --runs 3 2>&1 | grep -E "three-kernel"
  done
done
date -u
