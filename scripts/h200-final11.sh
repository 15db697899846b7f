#!/usr/bin/env bash
# Eleventh pass, last call (2026-11-28), this build only:
#   A. H.264: 240 frames of the 1080p pan at QP 27, --luma auto, by depth and by the
#      number of coders (PARVLC_H264_CODERS, default 2), two rounds, each stream compared
#      with the first; the per-batch debug log of the default shape;
#   B. Huffman: 4 GiB of system files, compress (gzip, native) and GPU decompress, stdin
#      to /dev/null, three runs, outputs checked first.
# There, from the project root, .device carried: bash scripts/h200-final11.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final11
B=.device/parvlc
D=/tmp/parvlc-final
mkdir -p "$D"
echo "== A. H.264"
pan_y4m "$D/pan.y4m"
$B h264 "$D/pan.y4m" --qp 27 --force -o "$D/ref.264" --luma auto --depth 16 2>/dev/null
for r in 1 2; do
  for shape in "8 2" "16 2" "16 3" "16 4" "32 2" "32 3" "64 2"; do
    set -- $shape
    wall "auto depth $1 coders $2 run $r" "PARVLC_H264_CODERS=$2 $B h264 $D/pan.y4m --qp 27 --force -o $D/x.264 --luma auto --depth $1"
    cmp -s "$D/x.264" "$D/ref.264" || echo "depth $1 coders $2: OTHER BYTES"
  done
  wall "auto depth 16 slice per row run $r" "$B h264 $D/pan.y4m --qp 27 --force -o $D/x.264 --luma auto --depth 16 --slice-rows 1"
done
RUST_LOG=parvlc=debug $B h264 "$D/pan.y4m" --qp 27 --force -o "$D/x.264" --luma auto --depth 16 2>&1 \
  | grep -E "h264 batch|GPU opened|done after" | tail -8 | cut -c 1-260
rm -f "$D/pan.y4m"
echo "== B. Huffman, 4 GiB"
sys_files "$D"
$B compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null > "$D/o.gz"
gzip -dc "$D/o.gz" | cmp - "$D/sys.tar" && echo "gzip: gzip -dc gives the input"
$B compress -f native "$D/sys.tar" -o "$D/o.pvlc" --force 2>/dev/null
$B decompress --backend wgpu "$D/o.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "native: the GPU decoder gives the input"
rm -f "$D/o.gz"
for r in 1 2 3; do
  wall "compress gzip stdin run $r" "$B compress -f gzip - -o - < $D/sys.tar"
  wall "compress native stdin run $r" "$B compress -f native - -o - < $D/sys.tar"
  wall "decompress wgpu native run $r" "$B decompress --backend wgpu $D/o.pvlc -o -"
done
RUST_LOG=parvlc=debug $B compress -f gzip - -o - < "$D/sys.tar" 2>&1 >/dev/null | grep -E "GPU opened|done after|GB/s" | cut -c 1-200
rm -rf "$D"
date -u
