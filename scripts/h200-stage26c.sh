#!/usr/bin/env bash
# Uploads through staging buffers kept mapped (this build: .device/parvlc, sb-new; for
# Huffman's chunks too, written on all cores) against 64c627b (parvlc-old, sb-old):
# - the library's 1 GiB of system files, native and gzip, three rounds of six runs
#   alternating (stream_bench decodes its output before timing);
# - the CLI's compress of 4 GiB from standard input, outputs decoded and compared first;
# - H.264, 1920 frames of the 1080p pan at QP 27 to /dev/shm, the previous output removed
#   before each run (outside the timing), three rounds alternating: one slice, a slice
#   per row, two and three batches in flight (PARVLC_H264_CODERS), and the readers 32 and
#   64 frames ahead (.device/parvlc-exp, this build with PARVLC_Y4M_AHEAD read, an
#   experiment); one debug-logged run of this build.
# There, from the project root, .device carried: bash scripts/h200-stage26c.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start stage26c
unpack_device
S=/tmp/parvlc-stage26c
sys_files "$S"
sb_rounds "$S" 3 sb-old sb-new
cli_compress_check "$S"
cli_compress_ab "$S" 2
rm -rf "$S"
D=/dev/shm/parvlc-stage26c
mkdir -p "$D"
pan_lengths "$D"
same_streams
for r in 1 2 3; do
  wall_fresh "old, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27"
  wall_fresh "new, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27"
  wall_fresh "new, 3 in flight, run $r" "PARVLC_H264_CODERS=3 .device/parvlc h264 $D/p1920.y4m --qp 27"
  wall_fresh "exp, ahead 32, run $r" "PARVLC_Y4M_AHEAD=32 .device/parvlc-exp h264 $D/p1920.y4m --qp 27"
  wall_fresh "exp, ahead 64, run $r" "PARVLC_Y4M_AHEAD=64 .device/parvlc-exp h264 $D/p1920.y4m --qp 27"
  wall_fresh "old, a slice per row, run $r" ".device/parvlc-old h264 $D/p1920.y4m --qp 27 --slice-rows 1"
  wall_fresh "new, a slice per row, run $r" ".device/parvlc h264 $D/p1920.y4m --qp 27 --slice-rows 1"
done
debug_run stage26c-debug
rm -rf "$D"
date -u
