#!/usr/bin/env bash
# Issue 13: a chunk's per-frame host work before its encode (codes, tables, a gzip
# frame's DEFLATE header) spread over the cores (.device/sb-new) against the build
# before, which did it on the coder's thread (sb-old): the library on 1 GiB of system
# files at its default shape, four rounds alternating, then a debug-logged run of each
# format (each chunk's phases). The change (frames_from_plan and ChunkLayout::from_frames by
# par_iter, tasks of 16 frames) was not kept and has no patch.
# There, from the project root, .device carried: bash scripts/h200-par30.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start par30
unpack_device
D=/dev/shm/parvlc-par30
sys_1g "$D"
RUNS=8 sb_rounds "$D" 4 sb-old sb-new
for f in native gzip; do
  echo "== phases: sb-new, $f, two runs, debug-logged"
  FORMAT=$f RUNS=2 RUST_LOG=parvlc=debug .device/sb-new "$D/sys1g" 2> "$D/$f.log" | tail -n +2
  chunk_phases < "$D/$f.log"
done
rm -rf "$D"
date -u
