#!/usr/bin/env bash
# Thirty-fourth pass (2026-11-30), last call: this pass's final build (.device/parvlc:
# the HT cleanup stage as a workgroup per code-block, tier-2 on all cores and copied
# once, many small readback parts copied in runs) against the build before the pass
# (.device/parvlc-base, 81d7ad0), alternating in one call:
#   - one 4K RGB picture, --ht and Part 1: both builds write the same codestreams, which
#     ojph_expand and opj_decompress decode to the source;
#   - `bench j2k --sizes 4K` (every GPU result checked against the CPU first), two rounds;
#   - the 4K picture --ht and Part 1, files in and out, three rounds, with ojph_compress
#     -reversible true and opj_compress -M 1 -threads 16 beside;
#   - thirty 4K frames --ht at depth 8, two rounds each, outputs compared;
#   - the 4K picture --ht debug-logged, two rounds each.
# There, from the project root, .device carried (staged with --openjpeg, plus the
# openjph-tools and libopenjph debs in .device/debs):  bash scripts/h200-final34.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final34
unpack_device
D=/tmp/parvlc-final34
PART1=1 ht_ab_same "$D"
ht_ab_bench "tier1|encoder|front"
PART1=1 ht_ab_cli "$D"
ht_ab_frames "$D"
ht_ab_debug "$D"
rm -rf "$D"
date -u
