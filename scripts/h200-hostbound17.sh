#!/usr/bin/env bash
# Seventeenth pass, sixth call (2026-11-28): what bounds the CLI where the GPU is not
# busy. `parvlc h264` at QP 27 on 1920 frames of the 1080p pan, two runs each: --luma
# 16x16 (a front end of about 4 ms of GPU a batch of 16: what is left is the host's and
# the transfers'), at --depth 16 with 4 batches in flight and --depth 64 with 3; the
# defaults with the output in /dev/shm instead of /tmp, and with the input there too.
# There, from the project root, .device carried: bash scripts/h200-hostbound17.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start hostbound17
D=/tmp/parvlc-hostbound17
S=/dev/shm/parvlc-hostbound17
mkdir -p "$D" "$S"
df -h /tmp /dev/shm | cat
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p1920.y4m" 8
rm "$D/p240.y4m"
for r in 1 2; do
  for shape in "16 4" "64 3"; do
    set -- $shape
    wall "luma 16x16, depth $1, $2 in flight, run $r" \
      "PARVLC_H264_CODERS=$2 .device/parvlc h264 $D/p1920.y4m --qp 27 --force --luma 16x16 --depth $1 -o $D/x16.264"
    wall "luma auto, depth $1, $2 in flight, run $r" \
      "PARVLC_H264_CODERS=$2 .device/parvlc h264 $D/p1920.y4m --qp 27 --force --depth $1 -o $D/x.264"
  done
  wall "defaults, output in /dev/shm, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 --force -o $S/x.264"
done
echo "stream sizes: 16x16 $(stat -c %s "$D/x16.264"), auto $(stat -c %s "$D/x.264")"
cmp "$D/x.264" "$S/x.264" && echo "the /dev/shm output is the same stream"
rm -f "$S/x.264"
cp "$D/p1920.y4m" "$S/p1920.y4m" && rm "$D/p1920.y4m"
for r in 1 2; do
  wall "defaults, input and output in /dev/shm, run $r" ".device/parvlc h264 $S/p1920.y4m --qp 27 --force -o $S/x.264"
done
cmp "$D/x.264" "$S/x.264" && echo "the same stream again"
echo "-- trace-logged, luma 16x16, depth 16"
RUST_LOG=parvlc=trace .device/parvlc h264 "$S/p1920.y4m" --qp 27 --force --luma 16x16 -o "$S/x.264" 2> "$D/log.txt"
gpu_batch_times "$D/log.txt"
rm -rf "$D" "$S"
date -u
