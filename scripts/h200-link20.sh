#!/usr/bin/env bash
# What the link moves through wgpu each way and by each method (examples/link_bench.rs),
# and where the frame plan's code_lengths pass spends its 70 us: the pass timed whole,
# without its serial tree, and without its sort (variant builds of frame_plan_bench
# whose plans are wrong on purpose, so NO_CHECK skips the twin check; timing only).
# The variants were uncommitted builds with a NO_CHECK switch in frame_plan_bench; the
# notree one failed on its wrong lengths before printing (the host checks each code).
# There, from the project root, .device carried: bash scripts/h200-link20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start link20
unpack_device
for c in 4 16; do CHUNK_MIB=$c N=64 .device/link_bench; done
for v in base notree nosort; do
  echo "== code_lengths: $v"
  for f in native gzip; do NO_CHECK=1 FORMAT=$f .device/fpb-$v; done
done
date -u
