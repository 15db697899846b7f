#!/usr/bin/env bash
# The library's 1 GiB of system files at the shapes that led in h200-shape20 (4 or 8 MiB
# chunks, 10 or 14 coders), each shape its own process, alternating, three rounds of
# eight timed runs (the best and the median of them), native and gzip; stream_bench
# decodes each shape's output before timing it.
# There, from the project root, .device carried: bash scripts/h200-shape20b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start shape20b
unpack_device
D=/tmp/parvlc-shape20
[ -f "$D/sys1g" ] || sys_1g "$D"
for round in 1 2 3; do
  for f in native gzip; do
    for shape in 4,10 4,14 8,10 8,14; do
      echo -n "round $round, $f: "
      FORMAT=$f CHUNKS_MIB=${shape%,*} DEPTHS=${shape#*,} RUNS=8 .device/sb "$D/sys1g" | tail -1
    done
  done
done
date -u
