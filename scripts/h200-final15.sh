#!/usr/bin/env bash
# Fifteenth pass, last call (2026-11-28), this build (.device/parvlc) only:
#   - one 4K RGB picture, Part 1 and --ht, and opj_compress -M 1 -threads 16 beside them,
#     three runs each (our codestreams decoded by opj_decompress to the source first);
#   - thirty 4K frames at depth 8, Part 1 and --ht, files in and out, three runs each;
#   - `bench j2k --sizes 4K` (every GPU result checked against the CPU inside the bench).
# There, from the project root, .device carried (staged with --openjpeg):
#   bash scripts/h200-final15.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final15
B=.device/parvlc
D=/tmp/parvlc-final15
mkdir -p "$D/out"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
for mode in "" "--ht"; do
  $B j2k "$D/pic.ppm" -o "$D/x.j2k" --force $mode 2>&1 | tail -1
  opj_decompress -i "$D/x.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/pic.ppm" && echo "opj_decompress gives the source ($mode)"
done
for r in 1 2 3; do
  wall "4K picture, run $r" "$B j2k $D/pic.ppm -o $D/x.j2k --force"
  wall "4K picture --ht, run $r" "$B j2k $D/pic.ppm -o $D/x.j2k --force --ht"
  wall "4K opj_compress -M 1 -threads 16, run $r" "opj_compress -i $D/pic.ppm -o $D/o.j2k -M 1 -threads 16"
done
pan_frames "$D" 30
for r in 1 2 3; do
  wall "30 frames depth 8, run $r" "$B j2k $D/in/*.ppm -o $D/out --force --depth 8"
  wall "30 frames --ht depth 8, run $r" "$B j2k $D/in/*.ppm -o $D/out --force --depth 8 --ht"
done
opj_decompress -i "$D/out/f029.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/in/f029.ppm" && echo "opj_decompress gives the last frame's source"
$B bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "tier1|encoder"
rm -rf "$D"
date -u
