#!/usr/bin/env bash
# Where a chunk's code lengths are built (issue 13, library 15 GB/s): the frame plan's
# code_lengths pass with its serial tree branch-free against before (frame_plan_bench,
# each chunk checked against the CPU twin first); then the library's 1 GiB of system files
# at its default shape, the build before (lengths on the GPU, the old tree) against this
# one with lengths on the GPU (new tree), frames on the GPU and lengths on the host, and
# everything on the host, alternating; then a trace-logged timeline of gpu-frames.
# stream_bench decodes its output before timing. The builds were experiments, not
# committed: sb-new had FramePlanner::GpuFrames (lengths on the host; measured slower,
# dropped) and fpb-new a branch-free serial tree (no faster, dropped).
# There, from the project root, .device carried: bash scripts/h200-planner20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start planner20
unpack_device
D=/tmp/parvlc-planner20
sys_1g "$D"
ls -l "$D/sys1g"
for round in 1 2; do
  for v in base new; do
    for f in native gzip; do echo -n "fpb-$v round $round: "; FORMAT=$f .device/fpb-$v "$D/sys1g"; done
  done
done
for round in 1 2; do
  for f in native gzip; do
    echo "== round $round, $f"
    echo -n "old auto: "; FORMAT=$f .device/sb-old "$D/sys1g" | tail -1
    for p in gpu gpu-frames host; do
      echo -n "new $p: "; PLANNER=$p FORMAT=$f .device/sb-new "$D/sys1g" | tail -1
    done
  done
done
for f in native gzip; do
  echo "== timeline, gpu-frames, $f"
  RUST_LOG=parvlc=trace PLANNER=gpu-frames FORMAT=$f RUNS=2 .device/sb-new "$D/sys1g" 2>"$D/t.log" | tail -1
  python3 scripts/gpu_timeline.py "$D/t.log" | tail -6
done
date -u
