#!/usr/bin/env bash
# Fifteenth pass (2026-11-28): pictures record and submit their GPU work in turns
# (.device/parvlc-turn) against all at once (.device/parvlc, commit eed5e26),
# alternating: thirty and sixty 4K frames at depth 8, files in and out, Part 1 and --ht,
# outputs compared between the builds; the first log lines of the turn build.
# There, from the project root, .device carried: bash scripts/h200-turn15.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start turn15
D=/tmp/parvlc-turn15
mkdir -p "$D/old" "$D/new"
pan_frames "$D" 60
mkdir -p "$D/thirty"; for k in $(seq -f %03g 0 29); do ln -s "$D/in/f$k.ppm" "$D/thirty/f$k.ppm"; done
for mode in "" "--ht"; do
  .device/parvlc j2k "$D"/in/*.ppm -o "$D/old" --force --depth 8 $mode 2>/dev/null
  .device/parvlc-turn j2k "$D"/in/*.ppm -o "$D/new" --force --depth 8 $mode 2>&1 | tail -1
  bad=0; for f in "$D"/old/*.j2k; do cmp -s "$f" "$D/new/$(basename "$f")" || bad=1; done
  [ $bad = 0 ] && echo "both builds write the same 60 codestreams ($mode)"
  for r in 1 2 3; do
    for n in thirty:thirty in:sixty; do
      wall "${n#*:} frames $mode depth 8, before, run $r" ".device/parvlc j2k $D/${n%:*}/*.ppm -o $D/old --force --depth 8 $mode"
      wall "${n#*:} frames $mode depth 8, turns, run $r" ".device/parvlc-turn j2k $D/${n%:*}/*.ppm -o $D/new --force --depth 8 $mode"
    done
  done
done
echo "-- the turn build's first log lines, Part 1, thirty frames"
RUST_LOG=parvlc=debug .device/parvlc-turn j2k "$D"/thirty/*.ppm -o "$D/new" --force --depth 8 2>&1 \
  | grep -E "opened|record and submit|read back in" | cut -c 15-23,30-220 | head -24
rm -rf "$D"
date -u
