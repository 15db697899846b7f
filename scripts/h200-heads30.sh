#!/usr/bin/env bash
# Issue 13: a gzip frame's DEFLATE header sized for the layout and written while the GPU
# codes (.device/sb-new) against the build before, which wrote every header before
# the encode (sb-old): the library on 1 GiB of system
# files at its default shape, four rounds alternating, then a debug-logged run of each
# format (each chunk's phases). The change is benches/results/h200-2026-11-30-heads30-exp.patch
# with its one commented line (layout.write_gzip_heads) restored; not kept.
# There, from the project root, .device carried: bash scripts/h200-heads30.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start heads30
unpack_device
D=/dev/shm/parvlc-heads30
sys_1g "$D"
RUNS=8 sb_rounds "$D" 4 sb-old sb-new
for f in native gzip; do phases_of sb-new "$D" $f heads30; done
rm -rf "$D"
date -u
