#!/usr/bin/env bash
# The vld decoder on wgpu and its CUDA twin, on the GPU machine. Stage first:
#   ../shared/device/stage; cargo build --release --features cuda --bin parvlc
#   cp target/release/parvlc .device/; cargo test --release --features cuda --test stages --no-run
#   cp target/release/deps/stages-* .device/stages   (the test binary; strip both with objcopy)
# Then there: bash scripts/h200-vld-cuda.sh. It runs the CUDA twin's test, then the Huffman
# bench at 1 GiB with --backend wgpu (a process without CUDA) and --backend wgpu,cuda (the
# same wgpu rows in a process that also holds a CUDA context), alternating, with the clocks
# sampled; then Nsight Compute on the CUDA kernel at 64 MiB. Every bench row's output is
# checked before it is timed.
source .device/env.sh
export PATH=/usr/local/cuda-13.0/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=cuda ./.device/stages vld_cuda 2>&1 | tail -3
nvidia-smi --query-gpu=clocks.sm,clocks.mem,pstate,power.draw --format=csv,noheader -lms 1000 > "$OUT/clocks.txt" &
sampler=$!
B="--sizes 1073741824 --entropies ${ENTROPIES:-2,4.5,7,8} --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
for be in wgpu wgpu,cuda wgpu cuda,wgpu; do
  echo "== --backend $be $(date +%T)"
  ./.device/parvlc bench --backend $be $B --json "$OUT/vld-backend-${be/,/-}.jsonl" 2>&1 | grep -i "^synthetic\|vld\|error\|panic"
done
kill $sampler
ncu --clock-control none --kernel-name vld_main --launch-skip 2 --launch-count 1 --section SpeedOfLight \
  --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis \
  --section Occupancy --section LaunchStats --section SourceCounters \
  ./.device/parvlc bench --backend cuda --sizes 67108864 --entropies 4.5 --strategies decoupled --no-baselines \
  --cpu-max 0 --runs 1 > "$OUT/ncu-vld.txt" 2>&1
