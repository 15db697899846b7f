#!/usr/bin/env bash
# The wgpu vld kernel decoding two blocks per invocation side by side (`decode_pair`,
# the experiment benches/results/h200-2026-11-30-vldpair32-exp.patch on 1249c12:
# .device/parvlc-pair) against one block per invocation (4b34819: .device/parvlc; the
# kernel is the same at 1249c12), both with the `cuda` feature. The Huffman bench's vld
# rows at 1 GiB and 4.5 bits, every run's output checked before it is timed: the high
# state (--backend cuda,wgpu) with the bench's 16 KiB blocks and with 4 KiB
# (--workgroup-size 64, what compress writes), then a Vulkan-only process (the CLI's
# state) on the first GiB of the machine's system files, 4 KiB blocks.
# There: bash scripts/h200-vldpair32.sh
source scripts/h200-lib.sh
h200_start vldpair32
unpack_device
B="--sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
for wg in 256 64; do
  for v in parvlc-pair parvlc; do
    echo "== $v, --workgroup-size $wg, high state $(date +%T)"
    .device/$v bench --backend cuda,wgpu --workgroup-size $wg $B 2>&1 | grep -E "^  vld|error|panic"
  done
done
D=/dev/shm/vp; mkdir -p "$D"
sys_1g "$D"
for v in parvlc-pair parvlc; do
  echo "== $v, sys1g, 4 KiB blocks, --backend wgpu $(date +%T)"
  .device/$v bench --backend wgpu --workgroup-size 64 --sizes 1048576 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3 "$D/sys1g" 2>&1 | grep -E "^  vld|error|panic"
done
date -u
