#!/usr/bin/env bash
# What native frames of 256 KiB (this build's compress) cost decompression against frames
# of 1 MiB (1b4e8bc's, .device/parvlc-old): each build compresses 4 GiB of system files
# to a file (native and gzip), each file is decoded and compared with the input first,
# then this build's `decompress` of each to /dev/null, on the CPU cores and on the GPU,
# three rounds alternating the files, with CPU times and peak memory.
# There, from the project root, .device carried: bash scripts/h200-decode19.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start decode19
for f in .device/*.gz; do gunzip -f "$f"; done
D=/tmp/parvlc-decode19
sys_files "$D"
rm -f "$D/sys1g"
for b in parvlc-old parvlc; do
  .device/$b compress -f native - -o - < "$D/sys.tar" 2>/dev/null > "$D/$b.pvlc"
  .device/$b compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null > "$D/$b.gz"
  .device/parvlc decompress "$D/$b.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$b.pvlc: $(stat -c %s "$D/$b.pvlc") bytes, decodes to the input"
  .device/parvlc decompress "$D/$b.gz" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$b.gz: $(stat -c %s "$D/$b.gz") bytes, decodes to the input"
  .device/parvlc info "$D/$b.pvlc" 2>&1 | head -3
done
cat "$D"/*.pvlc "$D"/*.gz > /dev/null
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    for backend in cpu wgpu; do
      wall "$b.pvlc --backend $backend run $r" ".device/parvlc decompress --backend $backend $D/$b.pvlc -o -"
      wall "$b.gz --backend $backend run $r" ".device/parvlc decompress --backend $backend $D/$b.gz -o -"
    done
  done
done
rm -rf "$D"
date -u
