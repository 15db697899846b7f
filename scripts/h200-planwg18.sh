#!/usr/bin/env bash
# Ran on an intermediate, uncommitted build of the eighteenth pass (docs/results.md,
# "Eighteenth pass", says which); PARVLC_EXP_* knobs are not in the committed code.
# The frame_plan stage's cost a chunk by the merge's workgroup size (an experiment knob,
# PARVLC_EXP_MERGE_WG, not kept): examples/frame_plan_bench on the first 64 MiB of system
# files (each chunk's GPU plan checked against the CPU twin first), then the library's
# host-to-host compress of 1 GiB (examples/stream_bench, which decodes its output before
# timing) with the merge at 32 and 256 invocations against the build before the stage
# (.device/stream_bench-old, aba1ea8), alternating; the phases of a debug-logged run.
# There, from the project root, .device carried: bash scripts/h200-planwg18.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start planwg18
D=/tmp/parvlc-planwg18
mkdir -p "$D"
for _ in 1 2; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 1073741824 > "$D/sys1g"
head -c 67108864 "$D/sys1g" > "$D/sys64m"
for f in native gzip; do
  for wg in 32 64 256; do
    echo "== merge workgroup $wg, $f"
    FORMAT=$f PARVLC_EXP_MERGE_WG=$wg ROUNDS=5 .device/frame_plan_bench "$D/sys64m"
  done
done
for r in 1 2; do
  for v in old 32 256; do
    echo "== library, merge $v, round $r"
    if [ $v = old ]; then b=.device/stream_bench-old; else b=.device/stream_bench; fi
    PARVLC_EXP_MERGE_WG=$v RUNS=3 $b "$D/sys1g" | tail -n +2
    PARVLC_EXP_MERGE_WG=$v FORMAT=gzip RUNS=3 $b "$D/sys1g" | tail -n +2
  done
done
echo "== library, debug-logged, merge 32"
PARVLC_EXP_MERGE_WG=32 RUST_LOG=parvlc=debug RUNS=1 .device/stream_bench "$D/sys1g" 2>&1 | chunk_phases
rm -rf "$D"
date -u
