#!/usr/bin/env bash
# The wgpu vld kernel storing the 16-byte units a block fills whole at once, through a
# second binding of its output (benches/results/h200-2026-11-30-vldunits33-exp.patch:
# .device/parvlc-units) against 8d03928's word stores (.device/parvlc-peak), both
# `--features cuda`. The Huffman bench's vld rows, 1 GiB at 4.5 bits, high state
# (--backend cuda,wgpu), 16 KiB and 4 KiB blocks, two rounds alternating; then the CLI's
# `decompress --backend wgpu` of 4 GiB of system files (native, 4 KiB blocks, a
# Vulkan-only process), outputs compared first, three rounds alternating.
# There: bash scripts/h200-vldunits33.sh
source scripts/h200-lib.sh
h200_start vldunits33
unpack_device
B="--sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
for round in 1 2; do
  for v in parvlc-units parvlc-peak; do
    echo "== round $round, $v, 16 KiB blocks $(date +%T)"
    .device/$v bench --backend cuda,wgpu $B 2>&1 | grep -i "vld\|error\|panic"
    echo "== round $round, $v, 4 KiB blocks (--workgroup-size 64) $(date +%T)"
    .device/$v bench --backend cuda,wgpu --workgroup-size 64 $B 2>&1 | grep -i "vld\|error\|panic"
  done
done
D=/dev/shm/dec33; mkdir -p "$D"
sys_files "$D"
.device/parvlc-peak compress -f native "$D/sys.tar" -o "$D/sys.pvl" 2>&1 | tail -1
for v in parvlc-units parvlc-peak; do
  .device/$v decompress --backend wgpu "$D/sys.pvl" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$v: equals the input"
done
for round in 1 2 3; do
  for v in parvlc-units parvlc-peak; do
    wall "round $round, native, $v --backend wgpu" ".device/$v decompress --backend wgpu $D/sys.pvl -o - 2>/dev/null > /dev/null"
  done
done
date -u
