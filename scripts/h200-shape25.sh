#!/usr/bin/env bash
# The CLI's batch shape with the front end in one dispatch a batch (192e525, chained):
# depth 32, 48 and 64 with two or three batches in flight, 960 and 1920 frames of the
# 1080p pan at QP 27, to /dev/shm, two runs each, every stream compared with the
# default's; .device/parvlc-old (ad530d5) at its default beside them; the front end's GPU
# time at batches of 40, 48 and 56.
# There, from the project root, .device carried: bash scripts/h200-shape25.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start shape25
unpack_device
D=/dev/shm/parvlc-shape25
mkdir -p "$D"
pan_lengths "$D"
.device/parvlc h264 "$D/p960.y4m" --qp 27 -o "$D/ref960.264" --force 2>/dev/null
.device/parvlc h264 "$D/p1920.y4m" --qp 27 -o "$D/ref1920.264" --force 2>/dev/null
BATCHES=40,48,56 .device/h264_intra_bench 1920 1080 2>&1 | grep intra
for n in 960 1920; do
  wall "old default, $n frames, run 1" ".device/parvlc-old h264 $D/p$n.y4m --qp 27 -o $D/x.264 --force"
  shape_runs "$n" 32 2
  shape_runs "$n" 32 3
  shape_runs "$n" 48 2
  shape_runs "$n" 48 3
  shape_runs "$n" 64 2
  shape_runs "$n" 64 3
  wall "old default, $n frames, run 2" ".device/parvlc-old h264 $D/p$n.y4m --qp 27 -o $D/x.264 --force"
done
rm -rf "$D"
date -u
