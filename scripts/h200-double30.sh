#!/usr/bin/env bash
# Issue 13: what a gzip frame's DEFLATE header costs the library's run, measured by
# doing it twice (patch benches/results/h200-2026-11-30-double30-exp.patch, on
# .device/sb-exp: PARVLC_DOUBLE_HEADERS set builds every header a second time). The
# same binary with and without, 1 GiB of system files, gzip, default shape, five rounds
# alternating; native once a round as a control.
# There, from the project root, .device carried: bash scripts/h200-double30.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start double30
unpack_device
D=/dev/shm/parvlc-double30
sys_1g "$D"
for round in 1 2 3 4 5; do
  echo "== round $round, gzip, headers once"
  FORMAT=gzip RUNS=8 .device/sb-exp "$D/sys1g" | tail -n +2
  echo "== round $round, gzip, headers twice"
  FORMAT=gzip RUNS=8 PARVLC_DOUBLE_HEADERS=1 .device/sb-exp "$D/sys1g" | tail -n +2
  echo "== round $round, native"
  FORMAT=native RUNS=8 .device/sb-exp "$D/sys1g" | tail -n +2
done
rm -rf "$D"
date -u
