#!/usr/bin/env bash
# Issue 13, the forty-sixth pass: the native decoder's window one batch shorter
# (src/huffman/framed_decode.rs, `decoders + 2` batches from the oldest not yet written)
# against the build before (`decoders + 3`), where the writer is the slowest stage (into
# a file on tmpfs) and where it is not (to /dev/null), in one call: 4 GiB of the
# machine's system files as a native file, decoded on wgpu by both builds alternating,
# three rounds (GNU time: wall and peak), each build's output compared first.
# Carried in .device: parvlc, parvlc-old (gzipped).
# There, from the project root: bash scripts/h200-window46.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-window46}"
unpack_device
D=/dev/shm/parvlc-window46
mkdir -p "$D"
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$D/sys.tar"
.device/parvlc compress -f native "$D/sys.tar" -o "$D/sys.pvlc" --force 2>/dev/null
for b in parvlc parvlc-old; do
  .device/$b decompress --backend wgpu "$D/sys.pvlc" -o "$D/back" --force 2>/dev/null && cmp "$D/back" "$D/sys.tar" && echo "$b: decodes to the input"
done
for r in 1 2 3; do
  for b in parvlc parvlc-old; do
    wall "$b into a file run $r" ".device/$b decompress --backend wgpu $D/sys.pvlc -o $D/back --force"
    wall "$b to /dev/null run $r" ".device/$b decompress --backend wgpu $D/sys.pvlc -o -"
  done
done
rm -rf "$D"
date -u
