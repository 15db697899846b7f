#!/usr/bin/env bash
# The H.264 coders' host side (issue 15): a batch's frames checked and cut into slices on
# all cores (15 ms of one coder's thread a batch of 32 before), pictures dropped once
# uploaded, the first stream quota 4 bits a pixel. .device/parvlc-old (the build before,
# e9a30de) against .device/parvlc, alternating, 960 and 1920 frames of the 1080p pan at
# QP 27: defaults (depth 32, two batches in flight), three in flight, depth 64; wall and
# peak. Streams compared with the old build's first; one debug-logged run of the new
# build summarized by scripts/h264_timeline.py.
# There, from the project root, .device carried: bash scripts/h200-h264host24.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264host24
unpack_device
D=/tmp/parvlc-h264host24
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
pan_y4m_times "$D/p240.y4m" "$D/p1920.y4m" 8
rm -f "$D/p240.y4m"
for b in parvlc-old parvlc; do .device/$b h264 "$D/p960.y4m" --qp 27 --force -o "$D/$b.264" 2>&1 | tail -1; done
cmp "$D/parvlc-old.264" "$D/parvlc.264" && echo "960 frames: the same stream"
PARVLC_H264_CODERS=3 .device/parvlc h264 "$D/p960.y4m" --qp 27 --depth 64 --force -o "$D/x.264" 2>/dev/null
cmp "$D/parvlc-old.264" "$D/x.264" && echo "depth 64, three in flight: the same stream"
RUST_LOG=parvlc=debug .device/parvlc h264 "$D/p1920.y4m" --qp 27 --force -o "$D/x.264" 2> "$D/log.txt"
python3 scripts/h264_timeline.py "$D/log.txt"
for r in 1 2; do
  for shape in "2 32" "3 32" "2 64"; do
    set -- $shape
    for n in 960 1920; do
      for b in parvlc-old parvlc; do
        wall "$b, $n frames, depth $2, $1 in flight, run $r" "PARVLC_H264_CODERS=$1 .device/$b h264 $D/p$n.y4m --qp 27 --depth $2 --force -o $D/x.264"
      done
    done
  done
done
date -u
