#!/usr/bin/env bash
# The vld rows of the Huffman bench (GPU time of the decode and its block CRC32s, each
# run checked against the input first) with the CRC32s' run shifts from the host's table
# (this build, parvlc) against built by every workgroup (the commit before, parvlc-old):
# 256 MiB synthetic at 4.5 bits and 1 GiB of system files, twice each, alternating.
# (A record: the build tried is benches/results/h200-2026-11-29-vldshifts21-exp.patch; no
# faster by wall or by the bench's GPU time, and a ninth binding for vld: dropped.)
# There, from the project root, .device carried: bash scripts/h200-vldbench21.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start vldbench21
unpack_device
D=/tmp/parvlc-vldbench21
sys_1g "$D"
for round in 1 2; do
  for b in parvlc-old parvlc; do
    echo "== $b, round $round"
    .device/$b bench --sizes 268435456 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3 "$D/sys1g" 2>&1 | grep -E '^[a-z0-9].*bytes|^  vld' | head -12
  done
done
date -u
