#!/usr/bin/env bash
# Sixteenth pass, fifth call (2026-11-28): the H.264 coders' host work spread over the
# cores (a batch's upload copied and its pictures' NAL units written a picture a core;
# `.device/parvlc`) against the build before (`.device/parvlc-old`, the escape commit),
# alternating; then the batch shapes (--depth, PARVLC_H264_CODERS) on the new build.
# 240 and 960 frames of the 1080p pan, QP 27; every stream compared with the old
# build's.
# There, from the project root, .device carried: bash scripts/h200-batch16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start batch16
D=/tmp/parvlc-batch16
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
python3 - "$D/p240.y4m" "$D/p960.y4m" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
head = data[: data.index(b"\n") + 1]
open(sys.argv[2], "wb").write(head + data[len(head):] * 4)
PY
cat "$D/p960.y4m" > /dev/null
echo "== A. old against new, defaults"
for n in 240 960; do
  .device/parvlc-old h264 "$D/p$n.y4m" --qp 27 --force -o "$D/old$n.264" 2>/dev/null
  .device/parvlc h264 "$D/p$n.y4m" --qp 27 --force -o "$D/new$n.264" 2>/dev/null
  cmp "$D/old$n.264" "$D/new$n.264" && echo "$n frames: both builds write the same stream ($(stat -c %s "$D/new$n.264") bytes)"
  for r in 1 2; do
    for b in parvlc-old parvlc; do
      wall "$n frames defaults, $b, run $r" ".device/$b h264 $D/p$n.y4m --qp 27 --force -o $D/x.264"
      cmp -s "$D/x.264" "$D/old$n.264" || echo "OTHER BYTES"
    done
  done
done
echo "== B. shapes, 960 frames"
for r in 1 2; do
  for shape in "16 4" "32 2" "32 3" "48 2" "64 2" "64 3"; do
    set -- $shape
    for b in parvlc-old parvlc; do
      wall "depth $1 coders $2, $b, run $r" "PARVLC_H264_CODERS=$2 .device/$b h264 $D/p960.y4m --qp 27 --force -o $D/x.264 --depth $1"
      cmp -s "$D/x.264" "$D/old960.264" || echo "OTHER BYTES"
    done
  done
done
for shape in "32 3" "64 2"; do
  set -- $shape
  echo "-- debug log, depth $1, $2 in flight"
  RUST_LOG=parvlc=debug PARVLC_H264_CODERS=$2 .device/parvlc h264 "$D/p960.y4m" --qp 27 --force -o "$D/x.264" --depth $1 2>&1 \
    | grep -E "h264 batch" | sed -n '8,12p' | cut -c 1-230
done
rm -rf "$D"
date -u
