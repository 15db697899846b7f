#!/usr/bin/env bash
# The wgpu vld kernel reading its payload a quad at a time and storing 16-byte units
# (this build, .device/parvlc) against the build before (.device/parvlc-old), both with
# the `cuda` feature. Stage: cargo build --release --features cuda --bin parvlc for each
# build; strip --strip-debug, gzip into .device/{parvlc,parvlc-old}.gz. Then there:
# bash scripts/h200-vldwgpu31.sh. The Huffman bench's vld rows at 1 GiB (every run's
# output checked before it is timed): --backend cuda,wgpu (the wgpu rows in the GPU's
# high state, as nvCOMP runs), then --backend wgpu (a Vulkan-only process), this build
# first in each.
source scripts/h200-lib.sh
h200_start vldwgpu31
unpack_device
B="--sizes 1073741824 --entropies ${ENTROPIES:-4.5} --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
for be in cuda,wgpu wgpu; do
  for v in new old; do
    bin=.device/parvlc; [ $v = old ] && bin=.device/parvlc-old
    echo "== --backend $be, $v $(date +%T)"
    $bin bench --backend $be $B 2>&1 | grep -i "vld\|error\|panic"
  done
done
