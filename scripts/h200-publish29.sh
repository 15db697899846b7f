#!/usr/bin/env bash
# Issue 13: coders that publish their chunk's length and write their own place only where
# it is known in time, never waiting (sb-new), against coders that take their places in
# order, each waiting for the one before (e7867d5 with 8 MiB chunks, sb-take), and
# acf34a5 (sb-old, 4 MiB chunks): the library's GiB of system files (examples/stream_bench
# at each build's default shape; it decodes the output before timing it), eight runs,
# native and gzip, three rounds alternating the builds.
# There, from the project root, .device carried: bash scripts/h200-publish29.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start publish29
unpack_device
D=/dev/shm/parvlc-publish29
sys_1g "$D"
RUNS=8 sb_rounds "$D" 3 sb-old sb-take sb-new
rm -rf "$D"
date -u
