#!/usr/bin/env bash
# Issue 13, the forty-sixth pass: the CLI as a user runs it, files in and files out
# (the input and the output on tmpfs, the page cache itself, so the disk does not
# decide), at the pass's final build, in one call: 4 GiB of the machine's system files,
# compress (gzip, native) on wgpu and CUDA and decompress on wgpu, each output checked
# (gzip -dc, cmp) before the timed runs; three runs each (GNU time: wall and peak).
# Carried in .device: parvlc (gzipped).
# There, from the project root: bash scripts/h200-files46.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-files46}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-files46
sys_files "$D"
rm -f "$D/sys1g"
echo "== checked first"
"$P" compress -f gzip "$D/sys.tar" -o "$D/sys.gz" --force 2>/dev/null
gzip -dc "$D/sys.gz" | cmp - "$D/sys.tar" && echo "compress -f gzip, wgpu: gzip -dc gives the input ($(stat -c %s "$D/sys.gz") bytes)"
"$P" compress -f native "$D/sys.tar" -o "$D/sys.pvlc" --force 2>/dev/null
"$P" decompress --backend wgpu "$D/sys.pvlc" -o "$D/back" --force 2>/dev/null && cmp "$D/back" "$D/sys.tar" && echo "native, wgpu both ways: the input"
"$P" decompress --backend wgpu "$D/sys.gz" -o "$D/back" --force 2>/dev/null && cmp "$D/back" "$D/sys.tar" && echo "gzip decompress --backend wgpu: the input"
"$P" compress --backend cuda -f gzip "$D/sys.tar" -o "$D/c.gz" --force 2>/dev/null && cmp "$D/c.gz" "$D/sys.gz" && echo "compress -f gzip, cuda: the wgpu bytes"
rm -f "$D/back" "$D/c.gz"
echo "== files in, files out (tmpfs)"
for r in 1 2 3; do
  for be in wgpu cuda; do
    for fmt in gzip native; do
      wall "compress $be $fmt run $r" "$P compress --backend $be -f $fmt $D/sys.tar -o $D/out.$fmt --force"
    done
  done
  wall "decompress wgpu gzip run $r" "$P decompress --backend wgpu $D/sys.gz -o $D/back --force"
  wall "decompress wgpu native run $r" "$P decompress --backend wgpu $D/sys.pvlc -o $D/back --force"
  wall "decompress auto native run $r" "$P decompress $D/sys.pvlc -o $D/back --force"
done
rm -rf "$D"
date -u
