#!/usr/bin/env bash
# The H.264 CLI's batch shape after the host-side change (683b77a): depth 32, 48, 64 with
# two and three batches in flight (PARVLC_H264_CODERS), 960 and 1920 frames of the 1080p
# pan at QP 27, output in /dev/shm (no disk behind the final sync); the default shape also
# to /tmp (the machine's disk), to see what the output's sync costs. Wall and peak, two
# rounds. Every shape's stream compared with the default's first.
# There, from the project root, .device carried: bash scripts/h200-h264shape24.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264shape24
unpack_device
D=/tmp/parvlc-h264shape24
S=/dev/shm/parvlc-h264shape24
mkdir -p "$D" "$S"
B=.device/parvlc
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
pan_y4m_times "$D/p240.y4m" "$D/p1920.y4m" 8
rm -f "$D/p240.y4m"
$B h264 "$D/p960.y4m" --qp 27 --force -o "$S/ref.264" 2>&1 | tail -1
for shape in "3 32" "2 48" "3 48" "3 64"; do
  set -- $shape
  PARVLC_H264_CODERS=$1 $B h264 "$D/p960.y4m" --qp 27 --depth $2 --force -o "$S/x.264" 2>/dev/null
  cmp "$S/ref.264" "$S/x.264" && echo "depth $2, $1 in flight: the same stream"
done
for r in 1 2; do
  for n in 960 1920; do
    wall "$n frames, depth 32, 2 in flight, to /tmp, run $r" "$B h264 $D/p$n.y4m --qp 27 --force -o $D/x.264"
    for shape in "2 32" "3 32" "2 48" "3 48" "2 64" "3 64"; do
      set -- $shape
      wall "$n frames, depth $2, $1 in flight, to /dev/shm, run $r" "PARVLC_H264_CODERS=$1 $B h264 $D/p$n.y4m --qp 27 --depth $2 --force -o $S/x.264"
    done
  done
done
rm -rf "$S"
date -u
