#!/usr/bin/env bash
# Issue 13: what the output's placement costs the library now. examples/stream_bench
# (which decodes each shape's output before timing it) on a GiB of the machine's system
# files, ten runs a shape, into the vector and into a sink (SINK), chunks of 4 and 8 MiB,
# 12 and 16 coders, native and gzip, two rounds.
# There, from the project root, .device carried: bash scripts/h200-sink29.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start sink29
unpack_device
D=/dev/shm/parvlc-sink29
sys_1g "$D"
for r in 1 2; do
  for f in native gzip; do
    for sink in "" 1; do
      echo "== round $r, $f, SINK=$sink"
      if [ -n "$sink" ]; then export SINK=1; else unset SINK; fi
      FORMAT=$f RUNS=10 CHUNKS_MIB=4,8 DEPTHS=12,16 .device/stream_bench "$D/sys1g" | tail -n +2
    done
  done
done
rm -rf "$D"
date -u
