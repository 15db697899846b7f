#!/usr/bin/env bash
# Issue 18 at the pass's build with the CUDA path's memory pool kept (.device/parvlc):
# h200-sbs39.sh again, its entropies settable (ENTROPIES; 4.5,7 ran, as the device time
# left allowed): parvlc against nvCOMP on the same bytes in the same run, every output
# checked before it is timed.
# There, from the project root, .device carried: ENTROPIES=4.5,7 bash scripts/h200-sbs39b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start sbs39b
unpack_device
D=/dev/shm/parvlc-sbs39b
mkdir -p "$D"
OUT="$OUT/sbs" PARVLC=.device/parvlc BACKENDS=wgpu,cuda SIZES=1073741824 ENTROPIES=${ENTROPIES:-2,4.5,7} \
  RUNS=5 DATA="$D/synthetic" timeout 230 bash scripts/h200-nvcomp.sh > /dev/null 2>&1
echo "nvcomp script exit $?"
cat "$OUT/sbs/table.md" 2>/dev/null
rm -rf "$D"
date -u
