#!/usr/bin/env bash
# (An experiment build: PARVLC_HOST_POOL, the host vectors kept for reuse, was a knob.)
# The library's host-to-host compress (1 GiB of system files) with 4, 16 and 32 host
# vectors kept, its CPU seconds a run beside its speed; the CLI's compress of 4 GiB with
# 4 and 16; and the planner alone on the same bytes (frames per chunk, one core and ten
# coders at once).
# There, from the project root, .device carried: bash scripts/h200-hostpool13.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start hostpool13
D=/tmp/parvlc-hostpool13
sys_files "$D"
for r in 1 2; do
  for p in 4 16 32; do
    echo "== pool $p round $r"
    PARVLC_HOST_POOL=$p DEPTHS=10,16 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
  done
done
for r in 1 2; do
  for p in 4 16; do
    wall "CLI gzip pool $p run $r" "PARVLC_HOST_POOL=$p .device/parvlc compress -f gzip - -o - < $D/sys.tar"
  done
done
echo "== planner"
RAYON_NUM_THREADS=1 .device/plan_bench "$D/sys1g"
.device/plan_bench "$D/sys1g" 10
rm -rf "$D"
date -u
