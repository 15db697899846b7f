#!/usr/bin/env bash
# The wgpu vld kernel reading its payload a quad at a time, its word picked by selects,
# and storing 16-byte units (benches/results/vldselect31-unmeasured.patch on 4b34819:
# .device/parvlc-sel) against 4b34819 (.device/parvlc), both with the `cuda` feature,
# in a process holding a CUDA context (--backend cuda,wgpu: the GPU's high state, as
# nvCOMP runs). Then 4b34819 on the blocks the CLI's compress writes (4 KiB:
# --workgroup-size 64) against the bench's default 16 KiB. The Huffman bench's vld rows,
# 1 GiB at 4.5 bits, every run's output checked before it is timed.
# Stage: cargo build --release --features cuda --bin parvlc for each build; strip
# --strip-debug, gzip into .device/{parvlc,parvlc-sel}.gz. There: bash scripts/h200-vldsel32.sh
source scripts/h200-lib.sh
h200_start vldsel32
unpack_device
B="--sizes 1073741824 --entropies ${ENTROPIES:-4.5} --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
for v in parvlc-sel parvlc; do
  echo "== $v, 16 KiB blocks $(date +%T)"
  .device/$v bench --backend cuda,wgpu $B 2>&1 | grep -i "vld\|error\|panic"
done
for v in parvlc parvlc-sel; do
  echo "== $v, 4 KiB blocks (--workgroup-size 64) $(date +%T)"
  .device/$v bench --backend cuda,wgpu --workgroup-size 64 $B 2>&1 | grep -i "vld\|cuvle\|error\|panic"
done
date -u
