#!/usr/bin/env bash
# Issue 13: how many chunks the final build's coders write into compress_to_vec's vector
# themselves (the rest: the writer's copy), at the library's default shape and at 16
# coders: examples/stream_bench (which decodes each shape's output before timing it) on
# a GiB of the machine's system files, eight runs a shape, native and gzip, two rounds.
# There, from the project root, .device carried: bash scripts/h200-inplace29.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start inplace29
unpack_device
D=/dev/shm/parvlc-inplace29
sys_1g "$D"
DEPTHS=12,16 RUNS=8 sb_rounds "$D" 2 sb-new
rm -rf "$D"
date -u
