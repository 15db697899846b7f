#!/usr/bin/env bash
# The session's last call: thirty 4K RGB frames (a vertical pan) through `parvlc j2k
# FRAMES -o FOLDER --depth 8`, files in and files out, Part 1 fast mode and --ht, the
# committed build (.device/parvlc: the MQ kernel at 8 coders a workgroup) against the
# experiment build at 64 (.device/parvlc-mqwg, PARVLC_EXP_MQ_WG=64: the session's MQ
# change before the workgroup one), alternating; the outputs compared between builds
# and the first frame decoded by opj_decompress to its source first. Then the experiment
# build at 4 and 2 coders a workgroup in `bench j2k` (every result checked inside).
# There, from the project root, .device carried (staged with --openjpeg):
#   bash scripts/h200-final14.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final14
D=/tmp/parvlc-final14
mkdir -p "$D/in" "$D/a" "$D/b"
pan_frames "$D" 30
cat "$D"/in/*.ppm > /dev/null
.device/parvlc j2k "$D"/in/*.ppm -o "$D/a" --force --depth 8 2>/dev/null
PARVLC_EXP_MQ_WG=64 .device/parvlc-mqwg j2k "$D"/in/*.ppm -o "$D/b" --force --depth 8 2>/dev/null
bad=0; for f in "$D"/a/*.j2k; do cmp -s "$f" "$D/b/$(basename "$f")" || bad=1; done
[ $bad = 0 ] && echo "both builds write the same 30 codestreams"
opj_decompress -i "$D/a/f000.j2k" -o "$D/back.ppm" >/dev/null 2>&1
python3 scripts/ppm.py same "$D/in/f000.ppm" "$D/back.ppm" && echo "opj_decompress gives frame 0"
for r in 1 2 3; do
  wall "30 frames Part 1, 64 coders, run $r" "PARVLC_EXP_MQ_WG=64 .device/parvlc-mqwg j2k $D/in/*.ppm -o $D/b --force --depth 8"
  wall "30 frames Part 1, 8 coders (committed), run $r" ".device/parvlc j2k $D/in/*.ppm -o $D/a --force --depth 8"
done
for r in 1 2; do
  wall "30 frames --ht, run $r" ".device/parvlc j2k --ht $D/in/*.ppm -o $D/a --force --depth 8"
done
rm -rf "$D"
for wg in 4 2; do
  echo "== MQ coders per workgroup $wg"
  PARVLC_EXP_MQ_WG=$wg .device/parvlc-mqwg bench j2k --sizes 4K,2K --no-openjpeg --no-one-core --runs 3 2>&1 | grep -E "three-kernel"
done
date -u
