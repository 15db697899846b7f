#!/usr/bin/env bash
# The Y4M file read ahead at its offsets by four threads (2026-11-28) against one thread
# reading it (.device/parvlc-serial), alternating: 240 and 720 frames of the 1080p pan at
# QP 27 with the CLI's defaults, whole process, the streams compared first; the coders'
# waits for pictures from the debug log.
# There, from the project root, .device carried: bash scripts/h200-h264-readers.sh
# (Run on 2026-11-28 in the twelfth pass: benches/results/h200-2026-11-28-h264-readers.txt.)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start h264-readers
D=/tmp/parvlc-readers
mkdir -p "$D"
pan_y4m "$D/pan.y4m"
pan_y4m "$D/pan720.y4m" 720
for f in pan pan720; do
  .device/parvlc-serial h264 "$D/$f.y4m" --qp 27 --force -o "$D/serial.264" 2>/dev/null
  .device/parvlc h264 "$D/$f.y4m" --qp 27 --force -o "$D/new.264" 2>/dev/null
  cmp "$D/serial.264" "$D/new.264" && echo "$f: the new build's stream equals the serial reader's"
done
for r in 1 2 3; do
  for b in serial ""; do
    wall "240 frames, ${b:-parallel} reader, run $r" ".device/parvlc${b:+-$b} h264 $D/pan.y4m --qp 27 --force -o $D/x.264"
  done
done
for r in 1 2; do
  for b in serial ""; do
    wall "720 frames, ${b:-parallel} reader, run $r" ".device/parvlc${b:+-$b} h264 $D/pan720.y4m --qp 27 --force -o $D/x.264"
  done
done
for b in serial ""; do
  echo "${b:-parallel} reader, 240 frames, the coders' waits:"
  RUST_LOG=parvlc=debug ".device/parvlc${b:+-$b}" h264 "$D/pan.y4m" --qp 27 --force -o "$D/x.264" 2>&1 \
    | grep -oE "waited [0-9.]+ ms for [0-9]+" | awk '{s+=$2; n++; if ($2>m) m=$2} END {printf "  %d batches, waits %.1f ms in all, longest %.1f ms\n", n, s, m}'
done
rm -rf "$D"
date -u
