#!/usr/bin/env bash
# Issue 13: the review's build (.device/sb-new: the frame plan's word layout one WGSL import
# shared by frame_plan and deflate_head) against the build
# before the pass (sb-old, ba16155): the library on 1 GiB of system files at its default
# shape, three rounds alternating, gzip and native; the scan's passes of a gzip chunk on
# the GPU's clock.
# There, from the project root, .device carried: bash scripts/h200-review30.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start review30
unpack_device
D=/dev/shm/parvlc-review30
sys_1g "$D"
RUNS=8 sb_rounds "$D" 3 sb-old sb-new
scan_passes .device/sb-new "$D"
rm -rf "$D"
date -u
