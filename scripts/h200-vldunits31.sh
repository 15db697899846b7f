#!/usr/bin/env bash
# vld storing whole 16-byte units (this build, .device/parvlc-new) against the build
# before (.device/parvlc-old, word stores), both with the `cuda` feature. Stage first:
#   cargo build --release --features cuda --bin parvlc, for each build; strip --strip-debug,
#   gzip into .device/parvlc-{old,new}.gz. Then there: bash scripts/h200-vldunits31.sh.
# The Huffman bench's vld rows (every run's output checked before it is timed) at 1 GiB,
# alternating, in a Vulkan-only process (--backend wgpu) and in one that also holds a CUDA
# context (--backend wgpu,cuda: the GPU's high state, as nvCOMP runs); then the CLI's GPU
# decompress of 4 GiB of system files, alternating, each output compared with the input.
source scripts/h200-lib.sh
h200_start vldunits31
unpack_device
D=/dev/shm/vu; mkdir -p "$D"
B="--sizes 1073741824 --entropies ${ENTROPIES:-4.5,7} --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
for round in 1 2; do
  for be in wgpu wgpu,cuda; do
    for v in old new; do
      echo "== round $round, --backend $be, $v $(date +%T)"
      ./.device/parvlc-$v bench --backend $be $B 2>&1 | grep -i "vld\|error\|panic" | grep -v "vld-cuda"
    done
  done
done
sys_files "$D"
./.device/parvlc-new compress -f native "$D/sys.tar" -o "$D/sys.pvl" 2>&1 | tail -1
ls -l "$D/sys.pvl"
for v in old new; do
  ./.device/parvlc-$v decompress --backend wgpu "$D/sys.pvl" -o - | cmp - "$D/sys.tar" && echo "$v: GPU decompress equals the input"
done
for round in 1 2 3; do
  for v in old new; do
    wall "round $round, decompress --backend wgpu, $v" "./.device/parvlc-$v decompress --backend wgpu $D/sys.pvl -o - > /dev/null"
  done
done
