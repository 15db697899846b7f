#!/usr/bin/env bash
# The frame plan's tree in rounds by the whole workgroup (this build, sb-new/fpb-new)
# against the serial tree on one invocation (sb-old/fpb-base): the code_lengths pass's
# GPU time (frame_plan_bench, each chunk checked against the CPU twin first), then the
# library's 1 GiB of system files at its default shape (stream_bench decodes its output
# before timing), alternating, and a trace-logged timeline of this build.
# There, from the project root, .device carried: bash scripts/h200-tree20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start tree20
for f in .device/*.gz; do gunzip -f "$f"; done
chmod +x .device/*
D=/tmp/parvlc-tree20
mkdir -p "$D"
for _ in 1 2; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 1073741824 > "$D/sys1g"
for v in base new base new; do
  for f in native gzip; do echo -n "fpb-$v: "; FORMAT=$f .device/fpb-$v "$D/sys1g"; done
done
for round in 1 2 3; do
  for f in native gzip; do
    for v in old new; do echo -n "round $round, $f, sb-$v: "; FORMAT=$f .device/sb-$v "$D/sys1g" | tail -1; done
  done
done
for f in native gzip; do
  echo "== timeline, this build, $f"
  RUST_LOG=parvlc=trace FORMAT=$f RUNS=2 .device/sb-new "$D/sys1g" 2>"$D/t.log" | tail -1
  python3 scripts/gpu_timeline.py "$D/t.log" | tail -6
done
date -u
