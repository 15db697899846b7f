#!/usr/bin/env bash
# The final build's stages (loop counters off natively, index clamps off on Vulkan,
# integer division kept checked, the decoder fully checked) against every check kept
# (PARVLC_RUNTIME_CHECKS=1, as before this pass), alternating in one call: cuvle's
# encode and compress (1 GiB at 4.5 bits), CAVLC (1080p, QP 27) and JPEG 2000 (4K), GPU
# time; each bench checks every output before timing it.
# There, from the project root, .device carried: bash scripts/h200-final23.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final23
unpack_device
for m in checked default checked default; do
  if [ $m = checked ]; then export PARVLC_RUNTIME_CHECKS=1; else unset PARVLC_RUNTIME_CHECKS; fi
  echo "== $m"
  timeout 80 .device/parvlc bench --sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3 2>&1 | grep -E "^  cuvle-decoupled +(encode|compress) "
  timeout 30 .device/parvlc bench cavlc --sizes 1080p --qps 27 --variants cavlcu --no-cpu --runs 20 2>&1 | grep -E "cavlcu +cavlc"
  timeout 60 .device/parvlc bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 3 2>&1 | grep -E "three-kernel|gpu-front-end"
done
date -u
