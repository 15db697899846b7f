#!/usr/bin/env bash
# The CUDA path on the GPU machine, beside the wgpu one: run from the project root there,
# after ../shared/device/stage and scripts/stage-cuda.sh here (.device-cuda/ carried).
# Each phase writes what it prints under $OUT (default ./out):
#   tests     the suites on every backend: wgpu (NVIDIA's Vulkan driver), CUDA, CPU
#   sanitize  the CUDA tests under compute-sanitizer: memcheck (all), racecheck (a subset)
#   bench     wgpu and CUDA side by side: 1 GiB at 2, 4.5 and 7 bits, every strategy
#   sweep     CUDA tuning at 1 GiB, 4.5 bits: block size x NET x write mode at full
#             occupancy, then fewer blocks per SM
#   ncu       Nsight Compute (--clock-control none) on both paths' encode kernels
# e.g. scripts/h200-cuda.sh tests bench
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
# shellcheck disable=SC1091
source .device-cuda/env.sh
B=.device-cuda/bin
export PARVLC_REQUIRE_CUDA=1
GIB=1073741824
# The cli test runs the binary at the path it was built at.
cli_exe=$(grep -ao '/[^ ]*target/release/parvlc' "$B/cli" | head -1)
if [ -n "$cli_exe" ]; then mkdir -p "$(dirname "$cli_exe")" && cp "$B/parvlc" "$cli_exe"; fi

for phase in "$@"; do
  case "$phase" in
  tests)
    {
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
      # How NVRTC and the driver were found (src/cuda/mod.rs `load_nvrtc`).
      RUST_LOG=parvlc=info "$B/parvlc" compress --backend cuda Cargo.toml -o /tmp/probe.pvlc --force
      echo "== lib (cuda::)"
      timeout 300 "$B/lib" cuda:: 2>&1
      echo "== lib exit $?"
      for t in cuvle formats cli bench; do
        echo "== $t"
        timeout 300 "$B/$t" 2>&1
        echo "== $t exit $?"
      done
    } 2>&1 | tee "$OUT/tests.txt"
    ;;
  sanitize)
    {
      export PARVLC_TEST_BACKENDS=cuda
      echo "== memcheck: cuvle"
      timeout 400 compute-sanitizer --tool memcheck --error-exitcode 99 "$B/cuvle" --test-threads 1 2>&1
      echo "== memcheck cuvle exit $?"
      echo "== memcheck: formats round trips"
      timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 "$B/formats" round_trips many_segments --test-threads 1 2>&1
      echo "== memcheck formats exit $?"
      echo "== racecheck: cuvle subset"
      timeout 400 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 99 "$B/cuvle" \
        default_config every_strategy pairs_path cuda_stage_overflow decoupled_fallback sizes_around_blocks --test-threads 1 2>&1
      echo "== racecheck exit $?"
      echo "== synccheck: cuvle subset"
      timeout 200 compute-sanitizer --tool synccheck --error-exitcode 99 "$B/cuvle" default_config cuda_stage_overflow --test-threads 1 2>&1
      echo "== synccheck exit $?"
    } 2>&1 | tee "$OUT/sanitize.txt"
    ;;
  bench)
    timeout 500 "$B/parvlc" bench --backend wgpu,cuda --sizes $GIB --entropies 2,4.5,7 \
      --strategies decoupled,reduce_then_scan,chained --no-baselines --cpu-max 0 --runs 5 \
      --json "$OUT/bench.jsonl" 2>&1 | tee "$OUT/bench.txt"
    ;;
  sweep)
    {
      timeout 300 "$B/parvlc" bench --backend cuda --sizes $GIB --entropies 4.5 --strategies decoupled \
        --no-baselines --cpu-max 0 --runs 5 --net 8,16,32 --workgroup-size 128,256,512 \
        --cuda-write direct,warp --json "$OUT/sweep.jsonl"
      timeout 200 "$B/parvlc" bench --backend cuda --sizes $GIB --entropies 4.5 --strategies decoupled \
        --no-baselines --cpu-max 0 --runs 5 --net 16 --workgroup-size 256 \
        --cuda-write direct,warp --blocks-per-sm 2,3,4,5,6,7 --json "$OUT/sweep-bpsm.jsonl"
    } 2>&1 | tee "$OUT/sweep.txt"
    ;;
  ncu)
    {
      sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis
        --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats"
      one="--sizes $GIB --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 1"
      echo "== ncu: CUDA cuvle_main"
      # shellcheck disable=SC2086
      timeout 250 ncu --clock-control none $sections -k regex:cuvle_main --launch-skip 12 --launch-count 1 \
        "$B/parvlc" bench --backend cuda $one 2>&1
      echo "== ncu: wgpu (Vulkan) encode"
      # shellcheck disable=SC2086
      timeout 150 ncu --clock-control none $sections --launch-skip 12 --launch-count 1 \
        "$B/parvlc" bench --backend wgpu $one 2>&1
      echo "== ncu wgpu exit $?"
    } 2>&1 | tee "$OUT/ncu.txt"
    ;;
  *)
    echo "unknown phase $phase" >&2
    exit 2
    ;;
  esac
done
