#!/usr/bin/env bash
# The pass's end (.device/parvlc) against its start (64c627b, .device/parvlc-old), files
# in and out as a user runs them, three rounds alternating: 960 and 1920 frames of the
# 1080p pan at QP 27 to /dev/shm (the previous output removed before each run, outside
# the timing), one slice, a slice per row and --luma 16x16; streams compared first; a
# debug-logged run (the end of a run: the idle buffers' release). Huffman's CLI, whose
# upload path did not change, checked for regressions: 1 GiB of system files from
# standard input, gzip and native, outputs decoded and compared first.
# There, from the project root, .device carried: bash scripts/h200-final26.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final26
unpack_device
D=/dev/shm/parvlc-final26
mkdir -p "$D"
pan_lengths "$D"
same_streams
same_streams --slice-rows 1
same_streams --luma 16x16
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall_fresh "$b, 960 frames, run $r" ".device/$b h264 $D/p960.y4m --qp 27"
    wall_fresh "$b, 1920 frames, run $r" ".device/$b h264 $D/p1920.y4m --qp 27"
    wall_fresh "$b, 1920 frames, a slice per row, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --slice-rows 1"
    wall_fresh "$b, 1920 frames, --luma 16x16, run $r" ".device/$b h264 $D/p1920.y4m --qp 27 --luma 16x16"
  done
done
debug_run final26-debug
rm -rf "$D"
S=/tmp/parvlc-final26
sys_1g "$S"
for b in parvlc-old parvlc; do
  .device/$b compress -f gzip - -o - < "$S/sys1g" 2>/dev/null | gzip -dc | cmp - "$S/sys1g" && echo "$b gzip: gzip -dc gives the input"
done
for r in 1 2; do
  for b in parvlc-old parvlc; do
    wall "$b gzip 1 GiB stdin run $r" ".device/$b compress -f gzip - -o - < $S/sys1g"
    wall "$b native 1 GiB stdin run $r" ".device/$b compress -f native - -o - < $S/sys1g"
  done
done
rm -rf "$S"
date -u
