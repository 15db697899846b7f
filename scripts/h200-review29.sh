#!/usr/bin/env bash
# Issue 13: the review's changes (59fb234: a coder's place filled by copying into it, no
# reference to the vector's spare capacity before; the mapped output unmapped by a guard)
# against the build before (9a004a1, sb-prev): the library's GiB of system files
# (examples/stream_bench at the default shape; it decodes the output before timing it),
# eight runs, native and gzip, three rounds alternating the builds.
# There, from the project root, .device carried: bash scripts/h200-review29.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start review29
unpack_device
D=/dev/shm/parvlc-review29
sys_1g "$D"
RUNS=8 sb_rounds "$D" 3 sb-prev sb-new
rm -rf "$D"
date -u
