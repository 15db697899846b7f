#!/usr/bin/env bash
# Thirty-sixth pass (2026-12-01), the pass's build: .device/parvlc (tier-2's bulk header
# writer and level-indexed tag trees, bench j2k --warm-up, the resident passes traced)
# against .device/parvlc-base (be8bf6b: the tier-2 before, --warm-up already): the same
# codestreams and three decoders; `bench j2k --sizes 4K --warm-up 1` of each, two rounds
# alternating, and the new one without a warm-up; the new build's tier-2 debug lines;
# the CLI beside ojph_compress and opj_compress; thirty frames of each mode.
# There, from the project root, .device carried (staged with --openjpeg, plus the
# openjph-tools and libopenjph debs in .device/debs):  bash scripts/h200-final36.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final36
unpack_device
D=/tmp/parvlc-final36
PART1=1 ht_ab_same "$D"
B="bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5"
for r in 1 2; do
  for b in base new; do
    echo "== $B --warm-up 1, $b, round $r"
    $(ht_bin $b) $B --warm-up 1 2>&1 | grep -E "ht|tier1-fast|dwt-gpu|gpu-fast-three"
  done
done
echo "== $B (no warm-up), new, debug-logged"
RUST_LOG=parvlc=debug .device/parvlc $B 2> "$D/log" | grep -E "ht|tier1-fast|dwt-gpu|gpu-fast-three"
grep -h "tier-2: headers" "$D/log" | sed -E 's/^\[[^ ]+ //' | tail -8
PART1=1 ht_ab_cli "$D"
ht_ab_frames "$D"
mkdir -p "$D/p1"
for r in 1 2; do
  wall "30 frames Part 1, new, run $r" ".device/parvlc j2k $D/in/*.ppm -o $D/p1 --force"
done
rm -rf "$D"
date -u
