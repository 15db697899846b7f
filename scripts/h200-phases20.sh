#!/usr/bin/env bash
# Where a coder's time goes in the library's 1 GiB compress (system files, 4 MiB chunks,
# 10 and 14 coders, native and gzip): the debug log's phases of each chunk (upload,
# histograms' submission to readback, planning, encode's record and submit, readback,
# headers and CRC32s), summarized by chunk_phases; stream_bench decodes its output
# before timing.
# There, from the project root, .device carried: bash scripts/h200-phases20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start phases20
unpack_device
D=/tmp/parvlc-phases20
sys_1g "$D"
for f in native gzip; do
  for depth in 10 14; do
    echo "== $f, depth $depth, debug-logged"
    RUST_LOG=parvlc=debug FORMAT=$f DEPTHS=$depth RUNS=3 .device/sb "$D/sys1g" 2>"$D/d.log" | tail -1
    chunk_phases < "$D/d.log"
  done
done
date -u
