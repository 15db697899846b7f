#!/usr/bin/env bash
# The library's host-to-host compress of 1 GiB of system files by pipeline shape, now
# that a chunk's GPU work is shorter (the code lengths' tree in rounds): chunks of 4, 8
# and 16 MiB, 6, 10 and 14 coders, native and gzip, twice; stream_bench decodes each
# shape's output before timing it.
# There, from the project root, .device carried: bash scripts/h200-shape20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start shape20
unpack_device
D=/tmp/parvlc-shape20
sys_1g "$D"
for round in 1 2; do
  for f in native gzip; do
    echo "== round $round, $f"
    FORMAT=$f CHUNKS_MIB=4,8,16 DEPTHS=6,10,14 .device/sb "$D/sys1g" | tail -n +2
  done
done
date -u
