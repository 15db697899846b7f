#!/usr/bin/env bash
# Issue 13's bound on memory (512 MiB) for `decompress --backend cuda`: 4 GiB of system
# files compressed by this build (native and gzip), each output compared with the input,
# then three rounds of decompressing each to /dev/null on CUDA, wgpu and the cores (GNU
# time's wall and peak), and one CUDA run with the pools' debug log.
# Carried in .device: parvlc (gzipped). There: bash scripts/h200-cudapeak43.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-cudapeak43}"
unpack_device
D=/dev/shm/parvlc-cudapeak43
sys_compressed "$D"
for f in pvl gz; do
  for b in cuda wgpu; do
    .device/parvlc decompress --backend $b "$D/sys.$f" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$f, --backend $b: equals the input"
  done
done
for round in 1 2 3; do
  for f in pvl gz; do
    for b in cuda wgpu cpu; do
      wall "round $round, $f, --backend $b" ".device/parvlc decompress --backend $b $D/sys.$f -o - > /dev/null"
    done
  done
done
rm -rf "$D"
date -u
