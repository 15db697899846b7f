#!/usr/bin/env bash
# Issue 13, the forty-seventh pass: the CLI with files in and files out, its output
# written through mappings on several threads (compress: each coder its own chunk's
# place; decompress: each batch copied by four threads) against the build before
# (write(2) from one thread), alternating, in one call: 4 GiB of the machine's system
# files on tmpfs; compress (gzip, native) on wgpu and CUDA, decompress on wgpu (and the
# default backend); then one round onto the machine's disk (the project's folder) and
# one with the output thrown away. Every output checked before the timed runs (gzip -dc,
# cmp; the new build's bytes the old build's).
# Carried in .device: parvlc (this build), parvlc-old (the build before), gzipped.
# The build measured was c619c2b (compress_to_file) with a decompress writer that copied
# each batch into the file through mappings on four threads; both were slower and are
# not kept (reverted in the next commit). parvlc-old had no `cuda` feature: its CUDA
# rows are empty.
# There, from the project root: bash scripts/h200-mapped47.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-mapped47}"
unpack_device
D=/dev/shm/parvlc-mapped47
sys_files "$D"
rm -f "$D/sys1g"
df -T /dev/shm . | sed 's/^/df: /'
echo "== checked first"
for b in parvlc-old parvlc; do
  P=.device/$b
  "$P" compress -f gzip "$D/sys.tar" -o "$D/$b.gz" --force 2>/dev/null
  "$P" compress -f native "$D/sys.tar" -o "$D/$b.pvlc" --force 2>/dev/null
  "$P" compress --backend cuda -f gzip "$D/sys.tar" -o "$D/$b.c.gz" --force 2>/dev/null
  cmp "$D/$b.c.gz" "$D/$b.gz" && echo "$b: compress -f gzip, cuda: the wgpu bytes"
  "$P" decompress --backend wgpu "$D/$b.pvlc" -o "$D/back" --force 2>/dev/null && cmp "$D/back" "$D/sys.tar" && echo "$b: native decompress --backend wgpu: the input"
  "$P" decompress --backend wgpu "$D/$b.gz" -o "$D/back" --force 2>/dev/null && cmp "$D/back" "$D/sys.tar" && echo "$b: gzip decompress --backend wgpu: the input"
  rm -f "$D/back" "$D/$b.c.gz"
done
gzip -dc "$D/parvlc.gz" | cmp - "$D/sys.tar" && echo "parvlc: gzip -dc gives the input ($(stat -c %s "$D/parvlc.gz") bytes)"
cmp "$D/parvlc.gz" "$D/parvlc-old.gz" && cmp "$D/parvlc.pvlc" "$D/parvlc-old.pvlc" && echo "both builds: the same bytes, both formats"
mv "$D/parvlc.gz" "$D/sys.gz"; mv "$D/parvlc.pvlc" "$D/sys.pvlc"; rm -f "$D/parvlc-old.gz" "$D/parvlc-old.pvlc"
echo "== files in, files out (tmpfs), alternating"
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    P=.device/$b
    for be in wgpu cuda; do
      for fmt in gzip native; do
        rm -f "$D/out.$fmt"
        wall "$b compress $be $fmt run $r" "$P compress --backend $be -f $fmt $D/sys.tar -o $D/out.$fmt"
      done
    done
    rm -f "$D/back"
    wall "$b decompress wgpu gzip run $r" "$P decompress --backend wgpu $D/sys.gz -o $D/back"
    rm -f "$D/back"
    wall "$b decompress wgpu native run $r" "$P decompress --backend wgpu $D/sys.pvlc -o $D/back"
    rm -f "$D/back"
    wall "$b decompress auto native run $r" "$P decompress $D/sys.pvlc -o $D/back"
  done
done
cmp "$D/back" "$D/sys.tar" && echo "the last decompress: the input"
gzip -dc "$D/out.gzip" | cmp - "$D/sys.tar" && echo "the last compress -f gzip: gzip -dc gives the input"
rm -f "$D/back" "$D/out.gzip" "$D/out.native"
echo "== the output thrown away (stdout to /dev/null)"
for b in parvlc-old parvlc; do
  P=.device/$b
  wall "$b compress wgpu gzip to null" "$P compress --backend wgpu -f gzip $D/sys.tar -o - > /dev/null"
  wall "$b decompress wgpu native to null" "$P decompress --backend wgpu $D/sys.pvlc -o - > /dev/null"
done
echo "== onto the disk (the project's folder; each output synced before the rename)"
W=./mapped47-scratch
mkdir -p "$W"
for r in 1 2; do
  for b in parvlc-old parvlc; do
    P=.device/$b
    rm -f "$W/out.gz" "$W/back"; sync
    wall "$b disk compress wgpu gzip run $r" "$P compress --backend wgpu -f gzip $D/sys.tar -o $W/out.gz"
    rm -f "$W/back"; sync
    wall "$b disk decompress wgpu native run $r" "$P decompress --backend wgpu $D/sys.pvlc -o $W/back"
  done
done
cmp "$W/back" "$D/sys.tar" && echo "disk: the last decompress: the input"
rm -rf "$W" "$D"
date -u
