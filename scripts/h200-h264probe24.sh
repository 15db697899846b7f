#!/usr/bin/env bash
# Where `parvlc h264` spends its wall time at today's defaults (depth 32, two batches in
# flight): debug-logged runs of 960 and 1920 frames of the 1080p pan (QP 27), summarized
# by scripts/h264_timeline.py; then coders in flight 2, 3, 4 (PARVLC_H264_CODERS) at depth
# 32, and --luma 16x16 (4 ms of front end a batch: the host's ceiling), wall and peak;
# the file read alone (cat) beside them; the front end's GPU time (h264_intra_bench).
# Every stream compared with the default run's first.
# There, from the project root, .device carried: bash scripts/h200-h264probe24.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264probe24
unpack_device
D=/tmp/parvlc-h264probe24
mkdir -p "$D"
B=.device/parvlc
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
pan_y4m_times "$D/p240.y4m" "$D/p1920.y4m" 8
rm -f "$D/p240.y4m"
$B h264 "$D/p960.y4m" --qp 27 --force -o "$D/ref960.264" 2>&1 | tail -1
for c in 3 4; do
  PARVLC_H264_CODERS=$c $B h264 "$D/p960.y4m" --qp 27 --force -o "$D/c$c.264" 2>/dev/null
  cmp "$D/ref960.264" "$D/c$c.264" && echo "coders $c: same stream"
done
for n in 960 1920; do
  RUST_LOG=parvlc=debug $B h264 "$D/p$n.y4m" --qp 27 --force -o "$D/x.264" 2> "$D/log$n.txt"
  tail -1 "$D/log$n.txt"
  python3 scripts/h264_timeline.py "$D/log$n.txt"
  gzip -c "$D/log$n.txt" > "$OUT/h264probe24-log$n.txt.gz"
done
wall "cat 1920 frames" "cat $D/p1920.y4m"
for r in 1 2; do
  for c in 2 3 4; do
    for n in 960 1920; do
      wall "$n frames, coders $c, run $r" "PARVLC_H264_CODERS=$c $B h264 $D/p$n.y4m --qp 27 --force -o $D/x.264"
    done
  done
  wall "1920 frames, --luma 16x16, run $r" "$B h264 $D/p1920.y4m --qp 27 --luma 16x16 --force -o $D/x.264"
done
LUMA=auto BATCHES=16,32,64 .device/h264_intra_bench 1920 1080
date -u
