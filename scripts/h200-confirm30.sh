#!/usr/bin/env bash
# Issue 13: the final commit's build (.device/sb-new: deflate_head deciding each cell by
# one invocation and a uniform load, for browsers' uniformity rules) against the build
# before the pass (sb-old, ba16155): the library on 1 GiB of system files at its default
# shape, three rounds alternating, gzip and native; the scan's passes of a gzip chunk on
# the GPU's clock.
# There, from the project root, .device carried: bash scripts/h200-confirm30.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start confirm30
unpack_device
D=/dev/shm/parvlc-confirm30
sys_1g "$D"
RUNS=8 sb_rounds "$D" 3 sb-old sb-new
echo "== the scan's passes on the GPU's clock, sb-new, gzip (trace-logged, chunks' lines)"
FORMAT=gzip RUNS=1 RUST_LOG=parvlc=trace .device/sb-new "$D/sys1g" 2> "$D/t.log" | tail -n +2
grep "on the GPU's clock" "$D/t.log" | sed -n '100,104p' | cut -c1-400
rm -rf "$D"
date -u
