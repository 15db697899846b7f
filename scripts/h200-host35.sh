#!/usr/bin/env bash
# Thirty-fifth pass (2026-12-01): the whole HT encoder's host side. main with debug lines
# (.device/parvlc-base) against this pass's build (.device/parvlc): the image's check on
# all cores, tier-2's headers while the blocks come back and their bytes copied once
# from the mapped readback into the codestream (on all cores), the samples through
# staging made ahead. The 4K picture --ht and Part 1, same codestreams, three decoders;
# `bench j2k --sizes 4K` two rounds alternating; the CLI with ojph_compress and
# opj_compress beside; thirty frames; the debug log.
# host35 ran the pass's first build (b1: the check, tier-2 from the mapped readback,
# staging); host35b the build of 3d7a9ff (also: the codestream not zeroed first, byte
# samples, tag trees without a vector a leaf).
# There, from the project root, .device carried (staged with --openjpeg, plus the
# openjph-tools and libopenjph debs in .device/debs):  bash scripts/h200-host35.sh [host35b]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-host35}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
PART1=1 ht_ab_same "$D"
ht_ab_bench "tier1|encoder|front"
PART1=1 ht_ab_cli "$D"
ht_ab_frames "$D"
ht_ab_debug "$D"
rm -rf "$D"
date -u
