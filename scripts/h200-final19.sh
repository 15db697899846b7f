#!/usr/bin/env bash
# The pass's last build: vld's block CRC32s a workgroup a block, as block_crc's (this
# build) against d9e1b26 (.device/parvlc-old), and the GPU decoder with 5 or 4 batches in
# flight instead of 6 (.device/parvlc-d5, -d4: experiment builds of this one, for the
# decoder's peak memory). 4 GiB of system files compressed by this build to files
# (native, gzip), each decoded on the CPU and compared with the input first; then
# `decompress --backend wgpu` of each file by each build to /dev/null, three rounds
# alternating, wall, CPU and peak memory. Then this build as the pass leaves it: the
# CLI's compress of the 4 GiB from standard input to /dev/null (outputs checked), two
# runs each, and the library's host-to-host compress of its first GiB
# (examples/stream_bench, output decoded before timing), two runs of each format.
# There, from the project root, .device carried: bash scripts/h200-final19.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final19
for f in .device/*.gz; do gunzip -f "$f"; done
D=/tmp/parvlc-final19
sys_files "$D"
.device/parvlc compress -f native - -o - < "$D/sys.tar" 2>/dev/null > "$D/f.pvlc"
.device/parvlc compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null > "$D/f.gz"
for f in f.pvlc f.gz; do
  .device/parvlc decompress --backend cpu "$D/$f" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$f: $(stat -c %s "$D/$f") bytes, decodes to the input"
done
for b in parvlc-old parvlc parvlc-d5 parvlc-d4; do
  .device/$b decompress --backend wgpu "$D/f.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$b: wgpu decodes f.pvlc to the input"
done
for b in parvlc-old parvlc; do
  .device/$b decompress --backend wgpu "$D/f.gz" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$b: wgpu decodes f.gz to the input"
done
for r in 1 2 3; do
  for b in parvlc-old parvlc parvlc-d5 parvlc-d4; do
    wall "$b native wgpu run $r" ".device/$b decompress --backend wgpu $D/f.pvlc -o -"
  done
  for b in parvlc-old parvlc; do
    wall "$b gzip wgpu run $r" ".device/$b decompress --backend wgpu $D/f.gz -o -"
  done
done
echo "== this build"
gzip -dc "$D/f.gz" | cmp - "$D/sys.tar" && echo "gzip -dc decodes f.gz to the input"
for r in 1 2; do
  wall "compress gzip stdin run $r" ".device/parvlc compress -f gzip - -o - < $D/sys.tar"
  wall "compress native stdin run $r" ".device/parvlc compress -f native - -o - < $D/sys.tar"
done
RUNS=2 .device/stream_bench "$D/sys1g"
FORMAT=gzip RUNS=2 .device/stream_bench "$D/sys1g" | tail -n +2
rm -rf "$D"
date -u
