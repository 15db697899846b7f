#!/usr/bin/env bash
# Thirty-fourth pass (2026-11-30), second call: the HT cleanup stage as a workgroup per
# code-block with its exponents in workgroup memory and MagSgn staged there
# (.device/parvlc, 2nd commit) against the build before it, one invocation per block
# (.device/parvlc-base, 81d7ad0), alternating in one call:
#   - one 4K RGB picture --ht: both builds write the same codestream, which ojph_expand
#     and opj_decompress decode to the source;
#   - `bench j2k --sizes 4K` (its HT rows check every GPU block against the CPU HT
#     coder before timing), two rounds each;
#   - the 4K picture --ht, files in and out, three rounds, with ojph_compress
#     -reversible true and opj_compress -M 1 -threads 16 beside;
#   - thirty 4K frames --ht at depth 8, two rounds each, outputs compared.
# There, from the project root, .device carried (staged with --openjpeg, plus the
# openjph-tools and libopenjph debs in .device/debs):  bash scripts/h200-htpar34b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start htpar34b
unpack_device
D=/tmp/parvlc-htpar34b
ht_ab_same "$D"
ht_ab_bench "ht|encoder"
ht_ab_cli "$D"
ht_ab_frames "$D"
rm -rf "$D"
date -u
