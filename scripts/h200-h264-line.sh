#!/usr/bin/env bash
# The Intra_4x4 predictions from the edge line (2026-11-28) against the build before
# (.device/parvlc-old), alternating: 240 frames of the 1080p pan at QP 27, --luma auto,
# depth 16 and 32, each stream compared with the old build's; the GPU front end's time
# per batch from the debug log; then the new build's front-end GPU time for batches of 16,
# 32 and 64 (examples/h264_intra_bench).
# There, from the project root, .device carried: bash scripts/h200-h264-line.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264-line
NEW=.device/parvlc
OLD=.device/parvlc-old
D=/tmp/parvlc-h264
mkdir -p "$D"
pan_y4m "$D/pan.y4m"
for b in OLD NEW; do
  ${!b} h264 "$D/pan.y4m" --qp 27 --force -o "$D/$b.264" --luma auto --depth 16 2>/dev/null
done
cmp "$D/OLD.264" "$D/NEW.264" && echo "the new build's stream equals the old one's"
for r in 1 2 3; do for depth in 16 32; do for b in OLD NEW; do
  wall "$b auto depth $depth run $r" "${!b} h264 $D/pan.y4m --qp 27 --force -o $D/x.264 --luma auto --depth $depth"
done; done; done
for b in OLD NEW; do
  RUST_LOG=parvlc=debug ${!b} h264 "$D/pan.y4m" --qp 27 --force -o "$D/x.264" --luma auto --depth 16 2>&1 \
    | grep -oE "GPU front end [0-9.]+ ms" | awk -v b=$b '{s+=$4; n++} END {printf "%s: GPU front end, batches of 16: mean %.2f ms over %d batches\n", b, s/n, n}'
done
LUMA=auto BATCHES=16,32,64 RUNS=2 .device/h264_intra_bench 1920 1080
rm -rf "$D"
date -u
