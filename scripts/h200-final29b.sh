#!/usr/bin/env bash
# Issue 13, the twenty-ninth pass's end: the final build's library (9878f75: coders
# writing their own places where known within 3 ms, 8 MiB chunks; sb-new) against
# acf34a5 (sb-old, 4 MiB chunks), alternating in one call: the library's GiB of system
# files (examples/stream_bench at each build's default shape; it decodes the output
# before timing it), eight runs, native and gzip, four rounds.
# There, from the project root, .device carried: bash scripts/h200-final29b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final29b
unpack_device
D=/dev/shm/parvlc-final29b
sys_1g "$D"
RUNS=8 sb_rounds "$D" 4 sb-old sb-new
rm -rf "$D"
date -u
