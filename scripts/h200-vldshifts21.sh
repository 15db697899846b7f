#!/usr/bin/env bash
# The GPU decoder's block CRC32s with their run shifts from the host's table (block_crc's;
# this build, parvlc) against built by every workgroup (the commit before, parvlc-old):
# 4 GiB of system files compressed by this build (native and gzip), each decoded by both
# builds on the GPU and compared with the input first, then three rounds alternating of
# `decompress --backend wgpu FILE -o - > /dev/null`, wall and peak.
# (A record: the build tried is benches/results/h200-2026-11-29-vldshifts21-exp.patch; no
# faster by wall or by the bench's GPU time, and a ninth binding for vld: dropped.)
# There, from the project root, .device carried: bash scripts/h200-vldshifts21.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start vldshifts21
unpack_device
D=/tmp/parvlc-vldshifts21
sys_files "$D"
.device/parvlc compress -f native "$D/sys.tar" -o "$D/sys.pvlc" --force 2>/dev/null
.device/parvlc compress -f gzip "$D/sys.tar" -o "$D/sys.gz" --force 2>/dev/null
for b in parvlc-old parvlc; do
  for f in sys.pvlc sys.gz; do
    .device/$b decompress --backend wgpu "$D/$f" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$b: $f decodes on the GPU to the input"
  done
done
for round in 1 2 3; do
  for f in sys.pvlc sys.gz; do
    for b in parvlc-old parvlc; do
      wall "$b decompress --backend wgpu $f run $round" ".device/$b decompress --backend wgpu $D/$f -o -"
    done
  done
done
date -u
