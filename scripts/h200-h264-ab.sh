#!/usr/bin/env bash
# A build of the H.264 intra front end against the build before it (2026-11-28),
# alternating: the front end's GPU time for batches of 16 and 64 1080p pictures
# (examples/h264_intra_bench, `auto`, one slice), then 240 frames of the 1080p pan at
# QP 27 with each build's CLI defaults, the streams compared first.
# Here: the build before as .device/parvlc-$BEFORE and .device/h264_intra_bench-$BEFORE,
# this one as .device/parvlc and .device/h264_intra_bench. There, from the project root,
# .device carried: BEFORE=line NAME=h264-rank bash scripts/h200-h264-ab.sh (the ranks
# against the line predictions), BEFORE=rank NAME=h264-pack (packed taps against the
# ranks).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-h264-ab}"
BEFORE=${BEFORE:?the build before: .device/parvlc-BEFORE}
D=/tmp/parvlc-h264-ab
mkdir -p "$D"
for r in 1 2; do
  for b in "-$BEFORE" ""; do
    echo "h264_intra_bench${b:-} run $r"
    LUMA=auto BATCHES=16,64 RUNS=2 ".device/h264_intra_bench$b" 1920 1080 | grep "slices one"
  done
done
pan_y4m "$D/pan.y4m"
".device/parvlc-$BEFORE" h264 "$D/pan.y4m" --qp 27 --force -o "$D/before.264" 2>/dev/null
.device/parvlc h264 "$D/pan.y4m" --qp 27 --force -o "$D/new.264" 2>/dev/null
cmp "$D/before.264" "$D/new.264" && echo "the new build's stream equals the $BEFORE build's"
for r in 1 2 3; do
  wall "$BEFORE build, CLI defaults, run $r" ".device/parvlc-$BEFORE h264 $D/pan.y4m --qp 27 --force -o $D/x.264"
  wall "new build, CLI defaults, run $r" ".device/parvlc h264 $D/pan.y4m --qp 27 --force -o $D/x.264"
done
rm -rf "$D"
date -u
