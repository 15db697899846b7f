#!/usr/bin/env bash
# The vld decoder's CUDA twin reading its payload a 16-byte quad at a time (loaded a quad
# ahead) and storing its output a 16-byte unit at a time (this build, .device/parvlc)
# against the build before (.device/parvlc-old: a word loaded every step, a word stored
# every four bytes), both with the `cuda` feature. Stage: cargo build --release --features
# cuda --bin parvlc for each build, and cargo test --release --features cuda --test stages
# --no-run for this one; strip --strip-debug, gzip into .device/{parvlc,parvlc-old,stages}.gz.
# Then there: bash scripts/h200-vldquads31.sh. The CUDA twin's test first; then the
# Huffman bench's vld rows at 1 GiB (every run's output checked before it is timed),
# --backend cuda,wgpu (the wgpu rows in the GPU's high state), alternating; then Nsight
# Compute on this build's CUDA kernel, as scripts/h200-vldncu31.sh ran it on the build
# before.
source scripts/h200-lib.sh
h200_start vldquads31
unpack_device
export PATH=/usr/local/cuda-13.0/bin:$PATH
PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=cuda ./.device/stages vld 2>&1 | grep -E "^test |result"
B="--sizes 1073741824 --entropies ${ENTROPIES:-4.5,7} --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
for round in ${ROUNDS:-1}; do
  for v in old new; do
    bin=.device/parvlc; [ $v = old ] && bin=.device/parvlc-old
    echo "== round $round, $v $(date +%T)"
    $bin bench --backend cuda,wgpu $B 2>&1 | grep -i "vld\|error\|panic"
  done
done
ncu --clock-control none --kernel-name vld_main --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SourceCounters \
  ./.device/parvlc bench --backend cuda --sizes 1073741824 --entropies 4.5 --strategies decoupled \
  --no-baselines --cpu-max 0 --runs 1 > "$OUT/ncu-vldquads-1g.txt" 2>&1
grep -v "^\s*$" "$OUT/ncu-vldquads-1g.txt" | grep -i "duration\|throughput\|hit rate\|stall\|eligible\|issued\|occupancy\|registers\|warp cycles\|sectors" | head -40
