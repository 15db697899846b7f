#!/usr/bin/env bash
# Where the three-kernel tier-1's GPU time goes: `bench j2k` at 4K and 2K with an
# experiment build (.device/parvlc-t1exp) that puts each of the strategy's dispatches in
# a compute pass of its own, timed by kernel (cm, raw, mq), printing the sums of each
# run's passes (every third line kept). The patch is
# benches/results/h200-2026-11-28-t1exp14.patch.
# There, from the project root, .device carried: bash scripts/h200-t1exp14.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start t1exp14
.device/parvlc-t1exp bench j2k --sizes 4K,2K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "EXPERIMENT|three|fast|MS/s" | awk '/EXPERIMENT/{c++; if (c%3==0) print; next} {print}' | head -60
