#!/usr/bin/env bash
# The H.264 front end in one dispatch a batch (macroblocks by ticket, waiting for their
# neighbours' edges) against a dispatch per wave: .device/parvlc-old (ad530d5, waves)
# and .device/parvlc (192e525) with PARVLC_H264_SCHEDULE=chained (its default) and
# =waves. Streams compared first (960 frames of the 1080p pan, and 240 with a slice per
# row); the front end's GPU time (h264_intra_bench 1920 1080, batches of 16, 32, 64, one
# slice and a slice per row) for the three; then the CLI, three rounds alternating, 240,
# 960 and 1920 frames at QP 27, defaults, to /dev/shm; a debug-logged 960-frame run of
# the new default.
# There, from the project root, .device carried: bash scripts/h200-chain25.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start chain25
unpack_device
D=/tmp/parvlc-chain25
S=/dev/shm/parvlc-chain25
mkdir -p "$D" "$S"
pan_lengths "$D"
run() { # LABEL CMD...: the three builds' commands
  case $1 in
    old) shift; .device/parvlc-old "$@" ;;
    chained) shift; PARVLC_H264_SCHEDULE=chained .device/parvlc "$@" ;;
    waves) shift; PARVLC_H264_SCHEDULE=waves .device/parvlc "$@" ;;
  esac
}
for b in old chained waves; do
  run $b h264 "$D/p960.y4m" --qp 27 -o "$S/$b.264" --force 2>&1 | tail -1
  run $b h264 "$D/p240.y4m" --qp 27 --slice-rows 1 -o "$S/$b-rows.264" --force 2>/dev/null
  run $b h264 "$D/p240.y4m" --qp 27 --luma 16x16 -o "$S/$b-16.264" --force 2>/dev/null
done
for b in chained waves; do
  cmp "$S/old.264" "$S/$b.264" && cmp "$S/old-rows.264" "$S/$b-rows.264" && cmp "$S/old-16.264" "$S/$b-16.264" \
    && echo "$b: the same streams as the old build (960 frames; 240 a slice per row; 240 16x16)"
done
ls -l "$S"/*.264
for r in 1 2; do
  for b in old chained waves; do
    echo "-- front end GPU time, $b, round $r"
    case $b in
      old) BATCHES=16,32,64 .device/h264_intra_bench-old 1920 1080 2>&1 | grep intra ;;
      *) PARVLC_H264_SCHEDULE=$b BATCHES=16,32,64 .device/h264_intra_bench 1920 1080 2>&1 | grep intra ;;
    esac
  done
done
for r in 1 2 3; do
  for n in 240 960 1920; do
    for b in old chained waves; do
      case $b in
        old) wall "$b, $n frames, run $r" ".device/parvlc-old h264 $D/p$n.y4m --qp 27 -o $S/x.264 --force" ;;
        *) wall "$b, $n frames, run $r" "PARVLC_H264_SCHEDULE=$b .device/parvlc h264 $D/p$n.y4m --qp 27 -o $S/x.264 --force" ;;
      esac
    done
  done
done
for r in 1 2; do
  for b in old chained; do
    case $b in
      old) wall "$b, 1920 frames, a slice per row, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27 --slice-rows 1 -o $S/x.264 --force" ;;
      *) wall "$b, 1920 frames, a slice per row, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 --slice-rows 1 -o $S/x.264 --force" ;;
    esac
  done
done
RUST_LOG=parvlc=debug .device/parvlc h264 "$D/p960.y4m" --qp 27 -o "$S/x.264" --force 2> "$D/chained.log"
python3 scripts/h264_timeline.py "$D/chained.log" > "$D/timeline.txt" 2>&1; head -12 "$D/timeline.txt"
gzip -c "$D/chained.log" > "$OUT/h200-2026-11-29-chain25-debug.log.gz"
rm -rf "$S"
date -u
