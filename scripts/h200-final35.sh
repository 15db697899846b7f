#!/usr/bin/env bash
# Thirty-fifth pass (2026-12-01), the last build: .device/parvlc (the pass's end: the
# results' copy in the same submission, checked on all cores) against .device/parvlc-prev
# (3b1fa5b) in `bench j2k --sizes 4K`'s HT rows, two rounds alternating; then the
# host35 series against 9003532 (.device/parvlc-base): same codestreams, three decoders,
# the bench, the CLI beside ojph_compress and opj_compress, thirty frames, debug logs.
# There, from the project root, .device carried (staged with --openjpeg, plus the
# openjph-tools and libopenjph debs in .device/debs):  bash scripts/h200-final35.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final35
unpack_device
D=/tmp/parvlc-final35
PART1=1 ht_ab_same "$D"
for r in 1 2; do
  for b in parvlc-prev parvlc; do
    echo "== bench j2k 4K, $b, round $r"
    .device/$b bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "ht"
  done
done
ht_ab_bench "tier1|encoder|front"
PART1=1 ht_ab_cli "$D"
ht_ab_frames "$D"
ht_ab_debug "$D"
rm -rf "$D"
date -u
