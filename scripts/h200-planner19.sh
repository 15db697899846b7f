#!/usr/bin/env bash
# Its build carried the readback-vector experiment of h200-hostvec19.sh (not kept).
# Where a chunk's frames are best planned now that block_crc is cheap (this build:
# 1b4e8bc with readback vectors by size class, and stream_bench's PLANNER and FRAME_KIB):
# the library's host-to-host compress of 1 GiB of system files (examples/stream_bench,
# output decoded before timing), native planned on the host (frames of 1 MiB, the
# default) or on the GPU (frames of 256 KiB or 1 MiB), gzip on the GPU (the default) or
# on the host, three rounds alternating; the GPU timeline of native planned on the GPU
# (scripts/gpu_timeline.py); then this build against 1b4e8bc (.device/stream_bench-old)
# at the defaults, two rounds alternating.
# There, from the project root, .device carried: bash scripts/h200-planner19.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start planner19
for f in .device/*.gz; do gunzip -f "$f"; done
D=/tmp/parvlc-planner19
sys_files "$D"
B=.device/stream_bench
for r in 1 2 3; do
  echo "== round $r"
  echo "native, host, 1 MiB: $(RUNS=3 $B "$D/sys1g" | tail -n +2)"
  echo "native, GPU, 256 KiB: $(PLANNER=gpu FRAME_KIB=256 RUNS=3 $B "$D/sys1g" | tail -n +2)"
  echo "native, GPU, 1 MiB: $(PLANNER=gpu RUNS=3 $B "$D/sys1g" | tail -n +2)"
  echo "gzip, GPU, 256 KiB: $(FORMAT=gzip RUNS=3 $B "$D/sys1g" | tail -n +2)"
  echo "gzip, host, 256 KiB: $(FORMAT=gzip PLANNER=host RUNS=3 $B "$D/sys1g" | tail -n +2)"
done
echo "== native planned on the GPU, 256 KiB, trace-logged"
RUST_LOG=parvlc=trace PLANNER=gpu FRAME_KIB=256 RUNS=2 $B "$D/sys1g" 2>"$D/t.log" | tail -n +2
python3 scripts/gpu_timeline.py "$D/t.log" | tail -9
library_ab "$D/sys1g" 2
rm -rf "$D"
date -u
