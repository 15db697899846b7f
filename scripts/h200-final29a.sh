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
for r in 1 2 3; do
  for f in native gzip; do
    for v in old new; do
      echo "== round $r, $f, sb-$v"
      FORMAT=$f RUNS=8 .device/sb-$v "$D/sys1g" | tail -n +2
    done
  done
done
cli_compress_check "$D"
cli_compress_ab "$D" 3
rm -rf "$D"
date -u
