#!/usr/bin/env bash
# Issue 13: the library's compress_to_vec, coders writing their own places (e7867d5), by
# shape: chunks of 4, 8, 12 and 16 MiB at 8, 12 and 16 coders, native and gzip, eight
# runs a shape (examples/stream_bench decodes each shape's output before timing it), on a
# GiB of the machine's system files, two rounds.
# There, from the project root, .device carried: bash scripts/h200-shape29.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start shape29
unpack_device
D=/dev/shm/parvlc-shape29
sys_1g "$D"
for r in 1 2; do
  for f in native gzip; do
    echo "== round $r, $f"
    FORMAT=$f RUNS=8 CHUNKS_MIB=4,8,12,16 DEPTHS=8,12,16 .device/sb-new "$D/sys1g" | tail -n +2 | grep -v "runs, ms"
  done
done
rm -rf "$D"
date -u
