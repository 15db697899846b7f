#!/usr/bin/env bash
# Issue 13: where a gzip chunk's time goes beside a native one's (the library, 1 GiB of
# system files, 8 MiB chunks at 12 coders): each chunk's phases from a debug-logged run
# of each format, the host's part of a GPU-planned chunk (plan_bench) on this machine's
# CPU, and gzip at 12 and 16 coders.
# There, from the project root, .device carried: bash scripts/h200-phases30.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start phases30
unpack_device
D=/dev/shm/parvlc-phases30
sys_1g "$D"
for f in native gzip; do
  echo "== phases: $f, two runs, debug-logged"
  FORMAT=$f RUNS=2 RUST_LOG=parvlc=debug .device/sb-new "$D/sys1g" 2> "$D/$f.log" | tail -n +2
  chunk_phases < "$D/$f.log"
  gzip -c "$D/$f.log" > "$OUT/phases30-$f-debug.log.gz"
done
echo "== plan_bench, the first 64 MiB, one thread"
head -c 67108864 "$D/sys1g" > "$D/s64"
RAYON_NUM_THREADS=1 .device/pb-new "$D/s64"
for round in 1 2; do
  for depth in 12 16; do
    for f in native gzip; do
      echo "== round $round, $f, 8 MiB, $depth coders"
      FORMAT=$f RUNS=8 CHUNKS_MIB=8 DEPTHS=$depth .device/sb-new "$D/sys1g" | tail -n +2
    done
  done
done
rm -rf "$D"
date -u
