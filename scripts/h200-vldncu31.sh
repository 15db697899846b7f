#!/usr/bin/env bash
# Nsight Compute on the vld decoder's CUDA twin (the same per-block decode as the wgpu
# kernel) at 1 GiB, 4.5 bits: where a step's cycles go with the GPU full of blocks (the
# 2026-11-24 profile ran 64 MiB, one warp per scheduler). Stage: cargo build --release
# --features cuda --bin parvlc; strip --strip-debug, gzip into .device/parvlc.gz.
# Then there: bash scripts/h200-vldncu31.sh.
source scripts/h200-lib.sh
h200_start vldncu31
unpack_device
export PATH=/usr/local/cuda-13.0/bin:$PATH
ncu --clock-control none --kernel-name vld_main --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy \
  --section LaunchStats --section SourceCounters --section InstructionStats \
  ./.device/parvlc bench --backend cuda --sizes 1073741824 --entropies 4.5 --strategies decoupled \
  --no-baselines --cpu-max 0 --runs 1 > "$OUT/ncu-vld-1g.txt" 2>&1
grep -v "^\s*$" "$OUT/ncu-vld-1g.txt" | grep -i "duration\|throughput\|hit rate\|stall\|eligible\|issued\|occupancy\|registers\|warp cycles\|vld-cuda\|sectors\|wavefront\|bank" | head -80
