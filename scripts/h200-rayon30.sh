#!/usr/bin/env bash
# Issue 13: does the library's run share its cores badly? The same build (.device/sb-old,
# HEAD) with rayon's pool at its default (one thread a core, 16) and at 8 and 4 threads
# beside the pipeline's own threads (12 coders, the writer's copiers), 1 GiB of system
# files at the default shape, gzip and native, three rounds alternating.
# There, from the project root, .device carried: bash scripts/h200-rayon30.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start rayon30
unpack_device
D=/dev/shm/parvlc-rayon30
sys_1g "$D"
for round in 1 2 3; do
  for f in gzip native; do
    for t in 16 8 4; do
      echo "== round $round, $f, RAYON_NUM_THREADS=$t"
      FORMAT=$f RUNS=8 RAYON_NUM_THREADS=$t .device/sb-old "$D/sys1g" | tail -n +2
    done
  done
done
rm -rf "$D"
date -u
