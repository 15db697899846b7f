#!/usr/bin/env bash
# A chunk's block CRC32s on the GPU (the block_crc stage, read back with the cell
# histograms, folded per frame on the host; .device/parvlc, .device/stream_bench) against
# the CRC32s on the coders' cores (.device/parvlc-old, .device/stream_bench-old, commit
# 31d7e51), alternating: the CLI's compress of 4 GiB of system files from stdin to
# /dev/null (gzip, native) and the library's host-to-host compress of their first GiB;
# every output checked first (gzip -dc and gzip -t check every member's CRC32; our
# decoders check every frame's), then the per-chunk phases of a debug-logged CLI run.
# There, from the project root, .device carried: bash scripts/h200-crc13.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start crc13
D=/tmp/parvlc-crc13
sys_files "$D"
for b in parvlc parvlc-old; do
  .device/$b compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null > "$D/$b.gz"
  gzip -t "$D/$b.gz" && gzip -dc "$D/$b.gz" | cmp - "$D/sys.tar" && echo "$b gzip: gzip -t passes, gzip -dc gives the input"
  .device/$b compress -f native - -o - < "$D/sys.tar" 2>/dev/null > "$D/$b.pvlc"
  .device/parvlc-old decompress "$D/$b.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$b native: the other build decodes it to the input"
done
cmp "$D/parvlc.gz" "$D/parvlc-old.gz" && cmp "$D/parvlc.pvlc" "$D/parvlc-old.pvlc" && echo "both builds write the same bytes"
rm -f "$D"/*.gz "$D"/*.pvlc
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall "$b gzip stdin run $r" ".device/$b compress -f gzip - -o - < $D/sys.tar"
    wall "$b native stdin run $r" ".device/$b compress -f native - -o - < $D/sys.tar"
  done
done
for r in 1 2; do
  for b in stream_bench-old stream_bench; do
    echo "== $b round $r"
    RUNS=3 .device/$b "$D/sys1g" | tail -n +2
    FORMAT=gzip RUNS=3 .device/$b "$D/sys1g" | tail -n +2
  done
done
echo "== CLI gzip, debug-logged (new build)"
RUST_LOG=parvlc=debug .device/parvlc compress -f gzip - -o - < "$D/sys.tar" 2>&1 >/dev/null | chunk_phases
rm -rf "$D"
date -u
