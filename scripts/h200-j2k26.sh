#!/usr/bin/env bash
# JPEG 2000's samples uploaded through the staging pool (.device/parvlc) against
# Queue::write_buffer (64c627b, .device/parvlc-old): a 4K RGB 8-bit frame of the synthetic
# pan alone, and 60 of them as a sequence (Part 1 and --ht), outputs on the machine's
# disk; every output compared with the old build's first; three rounds alternating;
# debug-logged single-image runs of both (the upload's own line).
# There, from the project root, .device carried: bash scripts/h200-j2k26.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start j2k26
unpack_device
D=/tmp/parvlc-j2k26
pan_frames "$D" 60
mkdir -p "$D/old" "$D/new" "$D/oldht" "$D/newht"
cat "$D"/in/*.ppm > /dev/null
.device/parvlc-old j2k "$D"/in/*.ppm -o "$D/old" --force 2>/dev/null
.device/parvlc j2k "$D"/in/*.ppm -o "$D/new" --force 2>/dev/null
.device/parvlc-old j2k --ht "$D"/in/*.ppm -o "$D/oldht" --force 2>/dev/null
.device/parvlc j2k --ht "$D"/in/*.ppm -o "$D/newht" --force 2>/dev/null
diff -rq "$D/old" "$D/new" && diff -rq "$D/oldht" "$D/newht" && echo "60 frames: the same codestreams (Part 1 and --ht)"
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall "$b, one 4K frame, run $r" ".device/$b j2k $D/in/f000.ppm -o $D/one.j2k --force"
    wall "$b, 60 frames, run $r" ".device/$b j2k $D/in/*.ppm -o $D/new --force"
    wall "$b, 60 frames --ht, run $r" ".device/$b j2k --ht $D/in/*.ppm -o $D/newht --force"
  done
done
for b in parvlc-old parvlc; do
  echo "-- $b, one 4K frame, debug-logged"
  RUST_LOG=parvlc=debug .device/$b j2k "$D/in/f000.ppm" -o "$D/one.j2k" --force 2>&1 | grep -E "uploaded|staging|done after" | cut -c1-160
done
rm -rf "$D"
date -u
