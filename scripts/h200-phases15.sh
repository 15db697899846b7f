#!/usr/bin/env bash
# Fifteenth pass (2026-11-28): where a JPEG 2000 picture's host time goes, this build
# (.device/parvlc): the debug log of one 4K RGB picture three times (separate
# processes), then of thirty 4K frames at depth 8 (Part 1, then --ht), summarised per
# phase (count, median, p90, sum).
# There, from the project root, .device carried: bash scripts/h200-phases15.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start phases15
D=/tmp/parvlc-phases15
mkdir -p "$D/out"
summary() {
  python3 -c '
import re, sys, statistics as st
ph = {}
for line in sys.stdin:
    for name, v in re.findall(r"([a-z][a-z0-9 ,+-]*?)\s*([0-9]+\.[0-9]+) ms", line):
        ph.setdefault(name.strip(" ,"), []).append(float(v))
    if re.search(r"GPU opened|done after", line): print("  " + line.strip()[24:200])
for n, v in ph.items():
    v.sort()
    print(f"  {n}: n {len(v)}, median {st.median(v):.1f} ms, p90 {v[int(len(v)*0.9)]:.1f}, sum {sum(v):.0f}")
'
}
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
for r in 1 2 3; do
  echo "-- one 4K picture, run $r"
  RUST_LOG=parvlc=debug .device/parvlc j2k "$D/pic.ppm" -o "$D/x.j2k" --force 2>&1 | grep -vE "pipeline .* built" | cut -c 30-260
done
pan_frames "$D" 30
for mode in "" "--ht"; do
  echo "-- thirty 4K frames, depth 8 $mode"
  RUST_LOG=parvlc=debug .device/parvlc j2k "$D"/in/*.ppm -o "$D/out" --force --depth 8 $mode 2>&1 | grep -vE "pipeline .* built" | summary
  wall "30 frames $mode depth 8" ".device/parvlc j2k $D/in/*.ppm -o $D/out --force --depth 8 $mode"
done
rm -rf "$D"
date -u
