#!/usr/bin/env bash
# Issue 13: is the library's spread between runs (best 14-15 GB/s, medians 13) the GPU's
# performance state? examples/stream_bench (which decodes each shape's output before
# timing it) on a GiB of the machine's system files, each run's time printed, with and
# without a second of untimed compressing before the timed runs (WARM_MS), chunks of 4
# and 8 MiB, native and gzip, two rounds; then trace-logged timelines of both chunk sizes.
# There, from the project root, .device carried: bash scripts/h200-state29.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start state29
unpack_device
D=/dev/shm/parvlc-state29
sys_1g "$D"
for r in 1 2; do
  for f in native gzip; do
    for mib in 4 8; do
      for warm in 0 1000; do
        echo "== round $r, $f, $mib MiB, WARM_MS=$warm"
        WARM_MS=$warm FORMAT=$f RUNS=10 CHUNKS_MIB=$mib .device/stream_bench "$D/sys1g" | tail -n +2
      done
    done
  done
done
for mib in 4 8; do
  for f in native gzip; do
    echo "== timeline, $f, $mib MiB (the last run, after a second's warm-up)"
    RUST_LOG=parvlc=trace WARM_MS=1000 FORMAT=$f RUNS=2 CHUNKS_MIB=$mib .device/stream_bench "$D/sys1g" 2>"$D/t.log" | tail -2
    python3 scripts/gpu_timeline.py "$D/t.log" | tail -6
  done
done
rm -rf "$D"
date -u
