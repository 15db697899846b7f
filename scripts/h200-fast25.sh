#!/usr/bin/env bash
# The CLI with the I_16x16 luma alone (the fast mode) beside the default, 16a18d7:
# 960 and 1920 frames of the 1080p pan at QP 27, one slice and a slice per row, to
# /dev/shm, three rounds alternating.
# There, from the project root, .device carried: bash scripts/h200-fast25.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start fast25
unpack_device
D=/dev/shm/parvlc-fast25
mkdir -p "$D"
pan_lengths "$D"
for r in 1 2 3; do
  for n in 960 1920; do
    for luma in auto 16x16; do
      wall "--luma $luma, $n frames, run $r" ".device/parvlc h264 $D/p$n.y4m --qp 27 --luma $luma -o $D/x.264 --force"
      wall "--luma $luma, $n frames, a slice per row, run $r" ".device/parvlc h264 $D/p$n.y4m --qp 27 --luma $luma --slice-rows 1 -o $D/x.264 --force"
    done
  done
done
ls -l "$D/x.264"
rm -rf "$D"
date -u
