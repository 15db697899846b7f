#!/usr/bin/env bash
# The frame plan's merge from every run's estimate (this build, sb-new/fpb-new) against
# the merge with a reduction a cell (sb-old/fpb-base): the plan passes' GPU time
# (frame_plan_bench, each chunk checked against the CPU twin first), then the
# library's 1 GiB of system files at its default shape (stream_bench decodes its output
# before timing), alternating, and a trace-logged timeline of this build. Not committed:
# interval costs 18 us and merge 7 against the merge's 28 a 4 MiB chunk, the scan no
# shorter (one pass more) and the library no faster; dropped.
# There, from the project root, .device carried: bash scripts/h200-runs20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start runs20
for f in .device/*.gz; do gunzip -f "$f"; done
chmod +x .device/*
D=/tmp/parvlc-runs20
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
