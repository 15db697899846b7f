#!/usr/bin/env bash
# The frame plan's code lengths with a rank sort, one barrier a tree round and pointer
# jumps bounded by the rounds (fpb-new, sb-mid), and then with the block CRC32s recorded
# after the frame plan so that they run beside it (sb-new), against the commit before
# (fpb-base, sb-old): the plan's passes (frame_plan_bench checks every chunk against the
# CPU twin first), twice each; the library's 1 GiB of system files at its default shape,
# three rounds of six runs alternating the three builds (stream_bench decodes its output
# before timing), native and gzip; then trace-logged timelines of sb-mid and sb-new.
# There, from the project root, .device carried: bash scripts/h200-lengths21.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start lengths21
unpack_device
D=/tmp/parvlc-lengths21
sys_1g "$D"
for v in base new base new; do
  for f in native gzip; do echo -n "fpb-$v: "; FORMAT=$f .device/fpb-$v "$D/sys1g"; done
done
sb_rounds "$D" 3 sb-old sb-mid sb-new
timeline_of .device/sb-mid "$D"
timeline_of .device/sb-new "$D"
date -u
