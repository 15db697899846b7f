#!/usr/bin/env bash
# Fifteenth pass, first call (2026-11-28):
#   A. The three-kernel tier-1's MQ kernel with seven words of pairs in flight
#      (.device/parvlc) against one (.device/parvlc-old), alternating: one 4K picture's
#      codestream compared between the builds and decoded by opj_decompress to its
#      source; `bench j2k` at 4K and 2K (every GPU result checked against the CPU tier-1
#      inside the bench); thirty 4K frames, files in and out, depth 8, outputs compared.
#   B. H.264 as the CLI runs it now (four threads reading the Y4M file, not measured on
#      the H200 before): 240 frames of the 1080p pan, QP 27, defaults, three runs, the
#      stream compared with the first; one debug-logged run's batch lines.
# There, from the project root, .device carried (staged with --openjpeg):
#   bash scripts/h200-prefetch15.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start prefetch15
D=/tmp/parvlc-prefetch15
mkdir -p "$D/old" "$D/new"
echo "== A. J2K MQ prefetch"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
for b in parvlc-old parvlc; do
  .device/$b j2k "$D/pic.ppm" -o "$D/$b.j2k" --force 2>&1 | tail -1
done
cmp "$D/parvlc-old.j2k" "$D/parvlc.j2k" && echo "the builds write the same codestream"
opj_decompress -i "$D/parvlc.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/pic.ppm" && echo "opj_decompress gives the source"
for r in 1 2; do
  for b in parvlc-old parvlc; do
    echo "== $b round $r"
    .device/$b bench j2k --sizes 4K,2K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "kernel|front-end-gpu"
  done
done
pan_frames "$D" 30
.device/parvlc-old j2k "$D"/in/*.ppm -o "$D/old" --force --depth 8 2>/dev/null
.device/parvlc j2k "$D"/in/*.ppm -o "$D/new" --force --depth 8 2>/dev/null
bad=0; for f in "$D"/old/*.j2k; do cmp -s "$f" "$D/new/$(basename "$f")" || bad=1; done
[ $bad = 0 ] && echo "both builds write the same 30 codestreams"
for r in 1 2 3; do
  wall "30 frames Part 1 depth 8, old, run $r" ".device/parvlc-old j2k $D/in/*.ppm -o $D/old --force --depth 8"
  wall "30 frames Part 1 depth 8, new, run $r" ".device/parvlc j2k $D/in/*.ppm -o $D/new --force --depth 8"
done
wall "30 frames HT depth 8, new" ".device/parvlc j2k $D/in/*.ppm -o $D/new --force --depth 8 --ht"
rm -rf "$D"
echo "== B. H.264"
mkdir -p "$D"
B=.device/parvlc
pan_y4m "$D/pan.y4m"
$B h264 "$D/pan.y4m" --qp 27 --force -o "$D/ref.264" 2>/dev/null
for r in 1 2 3; do
  wall "h264 240 frames defaults run $r" "$B h264 $D/pan.y4m --qp 27 --force -o $D/x.264"
  cmp -s "$D/x.264" "$D/ref.264" || echo "run $r: OTHER BYTES"
done
RUST_LOG=parvlc=debug $B h264 "$D/pan.y4m" --qp 27 --force -o "$D/x.264" 2>&1 \
  | grep -E "h264 batch|GPU opened|done after|read" | tail -12 | cut -c 1-260
rm -rf "$D"
date -u
