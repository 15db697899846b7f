#!/usr/bin/env bash
# Issue 13: the library's compress_to_vec with each GPU coder copying its chunk from the
# mapped output straight into its place in the vector (sb-new) against the build before,
# whose coders copy into vectors of their own and the writer's threads into the caller's
# (sb-old): examples/stream_bench (which decodes each shape's output before timing it) on
# a GiB of the machine's system files, chunks of 4 and 8 MiB at 12 coders, eight runs a
# shape, native and gzip, three rounds alternating the builds.
# There, from the project root, .device carried: bash scripts/h200-place29.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start place29
unpack_device
D=/dev/shm/parvlc-place29
sys_1g "$D"
CHUNKS_MIB=4,8 RUNS=8 sb_rounds "$D" 3 sb-old sb-new
rm -rf "$D"
date -u
