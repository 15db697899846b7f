#!/usr/bin/env bash
# Ran on an intermediate, uncommitted build of the eighteenth pass (docs/results.md,
# "Eighteenth pass", says which); PARVLC_EXP_* knobs are not in the committed code.
# The frame_plan stage's two passes by GPU timestamps (examples/frame_plan_bench: merge,
# code lengths), with the merge's workgroup at 32, 64 and 256 invocations (experiment
# knob PARVLC_EXP_MERGE_WG), native and gzip, on the first 64 MiB of system files; each
# chunk's GPU plan is checked against the CPU twin first.
# There, from the project root, .device carried: bash scripts/h200-plantime18.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start plantime18
D=/tmp/parvlc-plantime18
mkdir -p "$D"
tar cf - /usr /opt /etc 2>/dev/null | head -c 67108864 > "$D/sys64m"
for f in native gzip; do
  for wg in 32 64 256; do
    echo "== merge workgroup $wg, $f"
    FORMAT=$f PARVLC_EXP_MERGE_WG=$wg ROUNDS=5 .device/frame_plan_bench "$D/sys64m"
  done
done
rm -rf "$D"
date -u
