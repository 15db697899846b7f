#!/usr/bin/env bash
# This build (.device/parvlc: pictures uploaded through staging kept mapped, cleared by
# the GPU and made before the first batch; the CAVLC and front-end pipelines built side
# by side) against 64c627b (.device/parvlc-old): streams compared first (960 frames, one
# slice and a slice per row), then three rounds alternating of 960 and 1920 frames of
# the 1080p pan at QP 27 to /dev/shm, the previous output removed before each run
# (outside the timing); one slice and a slice per row; a debug-logged run of this build.
# There, from the project root, .device carried: bash scripts/h200-prewarm26.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start prewarm26
unpack_device
D=/dev/shm/parvlc-prewarm26
mkdir -p "$D"
pan_lengths "$D"
for rows in "" "--slice-rows 1"; do
  .device/parvlc-old h264 "$D/p960.y4m" --qp 27 $rows -o "$D/old.264" 2>/dev/null
  .device/parvlc h264 "$D/p960.y4m" --qp 27 $rows -o "$D/new.264" 2>/dev/null
  cmp "$D/old.264" "$D/new.264" && echo "960 frames $rows: the same stream, $(stat -c %s "$D/new.264") bytes"
  rm -f "$D/old.264" "$D/new.264"
done
run() {
  rm -f "$D/x.264"
  wall "$1" "$2 -o $D/x.264"
}
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    run "$b, 960 frames, run $r" ".device/$b h264 $D/p960.y4m --qp 27"
    run "$b, 1920 frames, run $r" ".device/$b h264 $D/p1920.y4m --qp 27"
    run "$b, 1920 frames, a slice per row, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --slice-rows 1"
  done
done
rm -f "$D/x.264"
RUST_LOG=parvlc=debug .device/parvlc h264 "$D/p1920.y4m" --qp 27 -o "$D/x.264" 2> "$D/log"
grep -E "Wgpu opened|h264: |done after|staging" "$D/log"
python3 scripts/h264_timeline.py "$D/log" | head -4
python3 scripts/h264_timeline.py "$D/log" | tail -8
gzip -c "$D/log" > "$OUT/prewarm26-debug.log.gz"
rm -rf "$D"
date -u
