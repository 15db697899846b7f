#!/usr/bin/env bash
# Issue 18 at the pass's build with the CUDA pool kept (h200-sbs39.sh, ENTROPIES settable; 4.5,7 ran)
# interleaved counts): parvlc against nvCOMP on the same bytes in the same run
# (scripts/h200-nvcomp.sh at 1 GiB and 2, 4.5, 7 bits: our encode, compress and compress
# in nvCOMP's scope on wgpu and CUDA, the decoders, beside nvCOMP's ANS, GDeflate and
# Deflate compress and decompress; every output checked before it is timed).
# There, from the project root, .device carried: bash scripts/h200-sbs39b.sh
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
