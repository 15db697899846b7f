#!/usr/bin/env bash
# Issue 13: where a gzip frame's DEFLATE header bits are best written, once the layout
# takes only its size: by the coder while the GPU codes (.device/sb-new), by the chunk's
# finish on all cores (sb-lazy), against the build that wrote every header before the
# encode (sb-old). The library on 1 GiB of system files, gzip, default shape, four
# rounds alternating; then a debug-logged run of sb-lazy (each chunk's phases).
# sb-lazy is benches/results/h200-2026-11-30-heads30-exp.patch; not kept.
# There, from the project root, .device carried: bash scripts/h200-lazy30.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start lazy30
unpack_device
D=/dev/shm/parvlc-lazy30
sys_1g "$D"
for round in 1 2 3 4; do
  for v in sb-old sb-new sb-lazy; do
    echo "== round $round, gzip, $v"
    FORMAT=gzip RUNS=8 ".device/$v" "$D/sys1g" | tail -n +2
  done
done
phases_of sb-lazy "$D" gzip
rm -rf "$D"
date -u
