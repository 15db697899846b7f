#!/usr/bin/env bash
# Sixteenth pass, ninth call (2026-11-28): the ninth Intra_4x4 mode predicted by DC's
# invocation instead of vertical's, and only the configured CAVLC variant's pipelines
# built (`.device/parvlc`, `.device/h264_intra_bench`), against the build before (the
# `-old` binaries: 09c1001, the ranking in registers), alternating.
#   A. `h264_intra_bench` GPU time (1080p noise pan, QP 27), batches of 16 and 64, two
#      rounds.
#   B. The CLI at its defaults on 240 and 960 frames of the 1080p pan, QP 27, three
#      rounds, each stream compared with the old build's.
# There, from the project root, .device carried: bash scripts/h200-dc16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start dc16
echo "== A. front end GPU time"
intra_bench_ab 2 "auto" 16,64
echo "== B. CLI"
D=/tmp/parvlc-dc16
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
for n in 240 960; do
  h264_ab "$n" 3
done
rm -rf "$D"
date -u
