#!/usr/bin/env bash
# Ran on an intermediate, uncommitted build of the eighteenth pass (docs/results.md,
# "Eighteenth pass", says which); PARVLC_EXP_* knobs are not in the committed code.
# The frame_plan stage, third shape (merge: 32 invocations of eight byte values each in
# registers; code lengths: the order by a bitonic sort): both passes by GPU timestamps
# (examples/frame_plan_bench, after a second of warm-up; each chunk's GPU plan checked
# against the CPU twin first), then the library's host-to-host compress of 1 GiB
# (examples/stream_bench, output decoded before timing) at chunks of 4 and 8 MiB against
# the build before the stage (.device/stream_bench-old, aba1ea8).
# There, from the project root, .device carried: bash scripts/h200-plantime18c.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start plantime18c
D=/tmp/parvlc-plantime18c
mkdir -p "$D"
for _ in 1 2; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 1073741824 > "$D/sys1g"
head -c 67108864 "$D/sys1g" > "$D/sys64m"
for f in native gzip; do
  FORMAT=$f ROUNDS=10 .device/frame_plan_bench "$D/sys64m"
done
for r in 1 2; do
  for b in stream_bench-old stream_bench; do
    echo "== $b round $r"
    CHUNKS_MIB=4,8 DEPTHS=8,12 RUNS=3 .device/$b "$D/sys1g" | tail -n +2
  done
done
echo "== gzip"
for b in stream_bench-old stream_bench; do
  FORMAT=gzip CHUNKS_MIB=4,8 DEPTHS=10 RUNS=3 .device/$b "$D/sys1g" | tail -n +2
done
rm -rf "$D"
date -u
