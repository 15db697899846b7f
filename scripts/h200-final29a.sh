#!/usr/bin/env bash
# Issue 13, the twenty-ninth pass's end: this build (coders writing their chunks into
# compress_to_vec's vector themselves, the library's chunks 8 MiB) against acf34a5
# (.device/*-old), alternating in one call. The library's GiB of system files
# (examples/stream_bench at each build's default shape; it decodes the output before
# timing it), eight runs, native and gzip, three rounds; the CLI's compress of 4 GiB from
# standard input to /dev/null (outputs checked first: gzip -dc, our decompress), three
# rounds.
# There, from the project root, .device carried: bash scripts/h200-final29a.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final29a
unpack_device
D=/dev/shm/parvlc-final29
sys_files "$D"
RUNS=8 sb_rounds "$D" 3 sb-old sb-new
cli_compress_check "$D"
cli_compress_ab "$D" 3
rm -rf "$D"
date -u
