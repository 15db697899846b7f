#!/usr/bin/env bash
# Issue 18 (cuvle on wgpu at 650 GB/s): two experiments on the encode's write pass, one
# build with switches (.device/parvlc-x: benches/results/h200-2026-12-02-reread40-exp.patch
# applied, not landed) beside the build before (.device/parvlc-old):
# PARVLC_EXP_REREAD=1, the write pass loads its thread-input again instead of holding its
# 16 words in registers since the first pass (fewer live values, more resident warps);
# PARVLC_EXP_BRANCHLESS=1, a staged put stores its pending word every time (an incomplete
# one into a slot nobody reads), so that it has no branch.
# `parvlc bench --backend wgpu,cuda` (the high state, as nvCOMP runs) at 1 GiB; every
# output is checked before it is timed.
# There, from the project root, .device carried:
#   bash scripts/h200-reread40.sh ENTROPIES VARIANT...   (VARIANT: BIN:REREAD:BRANCHLESS,
#   e.g. parvlc-x:1:0; BIN parvlc-old ignores the switches)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start reread40
unpack_device
entropies=$1
shift
for v in "$@"; do
  IFS=: read -r bin reread branchless <<< "$v"
  echo "== $bin PARVLC_EXP_REREAD=$reread PARVLC_EXP_BRANCHLESS=$branchless $(date +%T)"
  PARVLC_EXP_REREAD=$reread PARVLC_EXP_BRANCHLESS=$branchless timeout 170 \
    ".device/$bin" bench --backend wgpu,cuda --sizes 1073741824 --entropies "$entropies" \
    --strategies decoupled --no-baselines --cpu-max 0 --runs 3 2>&1 |
    grep -E "^  cuvle-decoupled  |rror|panic" | grep -E "encode|compress|rror|panic"
done
date -u
