#!/usr/bin/env bash
# The twenty-eighth pass: CAVLC a group of pictures at a time (.device/parvlc) against c613176 (.device/parvlc-old):
# each coder's first two batches submit their front end before recording CAVLC, the
# pipelines built beside the first batch's buffers and upload, the reconstruction
# written only for --recon. Streams compared first (960 frames of the 1080p pan at QP
# 27: one slice, a slice per row, and with --recon both the stream and the
# reconstruction); then three rounds alternating, each run's previous output removed
# outside the timing: 1920 frames one slice and a slice per row, 960 frames one slice,
# to /dev/shm; a debug-logged run of each build.
# There, from the project root, .device carried: bash scripts/h200-start28d.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start start28d
unpack_device
D=/dev/shm/parvlc-start28d
mkdir -p "$D"
pan_lengths "$D"
same_streams
same_streams --slice-rows 1
for b in parvlc-old parvlc; do
  .device/$b h264 "$D/p960.y4m" --qp 27 -o "$D/$b.264" --recon "$D/$b.yuv" 2>/dev/null
done
cmp "$D/parvlc-old.264" "$D/parvlc.264" && cmp "$D/parvlc-old.yuv" "$D/parvlc.yuv" \
  && echo "960 frames --recon: the same stream and reconstruction, $(stat -c %s "$D/parvlc.yuv") bytes"
rm -f "$D"/parvlc*.264 "$D"/parvlc*.yuv
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall_fresh "$b, 1920 frames, run $r" ".device/$b h264 $D/p1920.y4m --qp 27"
    wall_fresh "$b, 1920 frames, a slice per row, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --slice-rows 1"
    wall_fresh "$b, 960 frames, run $r" ".device/$b h264 $D/p960.y4m --qp 27"
  done
done
cp .device/parvlc-old "$D/old-bin" && cp .device/parvlc .device/parvlc-new
cp "$D/old-bin" .device/parvlc && debug_run start28d-old-debug
cp .device/parvlc-new .device/parvlc && debug_run start28d-debug
# Each batch's GPU time by timestamps (trace-logged: each pass timed, read in a
# submission of its own), medians over the batches.
for b in old-bin parvlc-new; do
  cp "$([ $b = old-bin ] && echo "$D/old-bin" || echo .device/parvlc-new)" .device/parvlc
  rm -f "$D/x.264"
  RUST_LOG=parvlc=trace .device/parvlc h264 "$D/p1920.y4m" --qp 27 -o "$D/x.264" 2> "$D/trace"
  python3 - "$b" "$D/trace" <<'PY'
import re, statistics, sys
fe, cv = [], []
for line in open(sys.argv[2]):
    m = re.search(r"GPU front end ([0-9.]+) ms, CAVLC ([0-9.]+) ms", line)
    if m:
        fe.append(float(m.group(1))); cv.append(float(m.group(2)))
print(f"{sys.argv[1]}: {len(fe)} batches, GPU front end median {statistics.median(fe):.2f} ms, CAVLC median {statistics.median(cv):.2f} ms")
PY
done
cp .device/parvlc-new .device/parvlc
rm -rf "$D"
date -u
