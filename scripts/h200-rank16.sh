#!/usr/bin/env bash
# Sixteenth pass, seventh call (2026-11-28): an I_NxN block's candidate modes ranked by
# every invocation of the block in registers (a sorting network over the nine modes'
# keys; one barrier and the placing pass fewer a step; `.device/parvlc`,
# `.device/h264_intra_bench`) against the build before (the `-old` binaries: the
# commit that spread the coders' host work), alternating.
#   A. `h264_intra_bench` GPU time (1080p noise pan, QP 27), batches of 16 and 64, two
#      rounds.
#   B. The CLI at its defaults on 240 and 960 frames of the 1080p pan, QP 27, three
#      rounds, each stream compared with the old build's.
# There, from the project root, .device carried: bash scripts/h200-rank16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start rank16
echo "== A. front end GPU time"
intra_bench_ab 2 "auto" 16,64
echo "== B. CLI"
D=/tmp/parvlc-rank16
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
for n in 240 960; do
  h264_ab "$n" 3
done
rm -rf "$D"
date -u
