#!/usr/bin/env bash
# Thirty-fifth pass (2026-12-01): the whole HT encoder's host side. main with debug lines
# (.device/parvlc-base) against this pass's build (.device/parvlc): the image's check on
# all cores, tier-2's headers while the blocks come back and their bytes copied once
# from the mapped readback into the codestream (on all cores), the samples through
# staging made ahead. The 4K picture --ht and Part 1, same codestreams, three decoders;
# `bench j2k --sizes 4K` two rounds alternating; the CLI with ojph_compress and
# opj_compress beside; thirty frames; the debug log.
# There, from the project root, .device carried (staged with --openjpeg, plus the
# openjph-tools and libopenjph debs in .device/debs):  bash scripts/h200-host35.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start host35
unpack_device
D=/tmp/parvlc-host35
PART1=1 ht_ab_same "$D"
ht_ab_bench "tier1|encoder|front"
PART1=1 ht_ab_cli "$D"
ht_ab_frames "$D"
ht_ab_debug "$D"
rm -rf "$D"
date -u
