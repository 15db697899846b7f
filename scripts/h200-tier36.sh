#!/usr/bin/env bash
# Thirty-sixth pass (2026-12-01): tier-2's headers in one round on the pool (each
# packet's task makes its blocks' headers): .device/parvlc against .device/parvlc-base
# (70d73cc, two rounds: the blocks' headers, then the packets'). The same codestreams
# (4K --ht and Part 1, thirty frames --ht); `bench j2k --sizes 4K --warm-up 1`
# debug-logged, its tier-2 lines and HT rows, two rounds alternating; the CLI's 4K --ht
# beside ojph_compress, three rounds.
# Run again as tier36b on the build that also takes each block's length from its
# segments in the packets' tasks (not from its passes on one core afterwards).
# There, from the project root, .device carried:  bash scripts/h200-tier36.sh [NAME]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-tier36}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
PART1=1 ht_ab_same "$D"
B="bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 --warm-up 1"
for r in 1 2; do
  for b in base new; do
    echo "== $B, $b, round $r"
    RUST_LOG=parvlc::j2k=debug $(ht_bin $b) $B 2> "$D/log" | grep -E "ht_cleanup|tier1-fast"
    grep -h "tier-2: headers" "$D/log" | sed -E 's/^\[[^ ]+ //' | tail -6
  done
done
for r in 1 2 3; do
  wall "4K --ht, base, run $r" ".device/parvlc-base j2k $D/pic.ppm -o $D/x.j2k --force --ht"
  wall "4K --ht, new, run $r" ".device/parvlc j2k $D/pic.ppm -o $D/x.j2k --force --ht"
  wall "4K ojph_compress -reversible true, run $r" "ojph_compress -i $D/pic.ppm -o $D/o.j2c -reversible true -num_decomps 5 -block_size {64,64}"
done
ht_ab_frames "$D"
rm -rf "$D"
date -u
