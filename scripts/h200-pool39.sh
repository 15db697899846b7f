#!/usr/bin/env bash
# The CUDA path's compress beside its encode: the device's default memory pool kept
# (release threshold raised, .device/parvlc) against the build before (.device/parvlc-base),
# `parvlc bench --backend cuda` at 1 GiB, 2, 4.5 and 7 bits, alternating; every output is
# checked before it is timed.
# There, from the project root, .device carried: bash scripts/h200-pool39.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start pool39
unpack_device
for b in parvlc parvlc-base parvlc; do
  echo "== .device/$b"
  timeout 100 ".device/$b" bench --backend cuda --sizes 1073741824 --entropies 2,4.5,7 \
    --strategies decoupled --no-baselines --cpu-max 0 --runs 3 2>&1 |
    grep -E "^  cuvle-cuda-decoupled  " | grep -E "encode|compress"
done
date -u
