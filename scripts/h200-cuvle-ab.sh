#!/usr/bin/env bash
# cuvle's kernel rows for several builds, both wgpu flavours (subgroup, and the
# workgroup-memory one browsers run), side by side in one run on the GPU machine:
# 1 GiB synthetic inputs, the decoupled look-back, rounds alternating the builds so that
# drift hits all alike. The bench checks every row's output before timing it.
# There, from the project root, .device carried:
#   BINS=".device/parvlc-old .device/parvlc" bash scripts/h200-cuvle-ab.sh
# Knobs: ENTROPIES (4.5,8), ROUNDS (2), FLAVOURS ("subgroup workgroup"), EXTRA (more
# bench arguments, e.g. "--net 32").
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/cuvle-ab.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
BINS=${BINS:-.device/parvlc-old .device/parvlc}
ENTROPIES=${ENTROPIES:-4.5,8}
ROUNDS=${ROUNDS:-2}
FLAVOURS=${FLAVOURS:-subgroup workgroup}
EXTRA=${EXTRA:-}
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in $(seq "$ROUNDS"); do
  for flavour in $FLAVOURS; do
    for P in $BINS; do
      flag=""
      [ "$flavour" = workgroup ] && flag=--workgroup-flavour
      echo "== round $r, $P, $flavour flavour $EXTRA"
      # shellcheck disable=SC2086
      $P bench --backend wgpu --sizes 1073741824 --entropies "$ENTROPIES" \
        --strategies decoupled --no-baselines --cpu-max 0 --runs 5 $flag $EXTRA 2>&1 |
        grep -E "^synthetic|flavour|cuvle-decoupled +(encode|compress) "
    done
  done
done
