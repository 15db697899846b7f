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
scan_passes .device/sb-new "$D"
rm -rf "$D"
date -u
