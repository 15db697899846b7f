#!/usr/bin/env bash
# Issue 13: gzip frames' DEFLATE headers built on the GPU in the frame plan's submission
# (the deflate_head stage: a workgroup a frame, .device/sb-new) against the build before,
# which built every
# header on the coder's thread (sb-old): the library on 1 GiB of system files at its
# default shape, five rounds alternating, gzip and native; then a debug-logged gzip run
# of each build (each chunk's phases).
# There, from the project root, .device carried: bash scripts/h200-gpuhead30.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start gpuhead30
unpack_device
D=/dev/shm/parvlc-gpuhead30
sys_1g "$D"
RUNS=8 sb_rounds "$D" 5 sb-old sb-new
for v in sb-old sb-new; do phases_of $v "$D" gzip; done
scan_passes .device/sb-new "$D"
rm -rf "$D"
date -u
