#!/usr/bin/env bash
# Native frames of at most 256 KiB planned on the GPU, as gzip's (this build) against
# native frames of 1 MiB planned on the host (1b4e8bc, .device/*-old): the CLI's
# compress of 4 GiB of system files from standard input to /dev/null, outputs checked
# first (gzip -dc, our decompress), three rounds alternating, with CPU times and peak
# memory; the library's host-to-host compress of their first GiB (examples/stream_bench,
# output decoded before timing), three rounds alternating.
# There, from the project root, .device carried: bash scripts/h200-native19.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start native19
for f in .device/*.gz; do gunzip -f "$f"; done
D=/tmp/parvlc-native19
sys_files "$D"
cli_compress_check "$D"
cli_compress_ab "$D" 3
library_ab "$D/sys1g" 3
rm -rf "$D"
date -u
