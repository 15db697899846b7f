#!/usr/bin/env bash
# Issue 13: the library's host-to-host compress (examples/stream_bench, which decodes each
# shape's output before timing it) of a GiB of the machine's system files at chunks of
# 4 and 8 MiB and 8, 12 and 16 coders, native and gzip, six runs a shape, two rounds.
# There, from the project root, .device carried: bash scripts/h200-chunks28.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start chunks28
unpack_device
D=/dev/shm/parvlc-chunks28
sys_1g "$D"
for r in 1 2; do
  for f in native gzip; do
    echo "== round $r, $f"
    FORMAT=$f RUNS=6 CHUNKS_MIB=4,8 DEPTHS=8,12,16 .device/stream_bench "$D/sys1g" | tail -n +2
  done
done
rm -rf "$D"
date -u
