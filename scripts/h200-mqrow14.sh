#!/usr/bin/env bash
# The MQ coder's contexts holding their state's row of Table C.2 (.device/parvlc: one
# workgroup-memory read a decision, not two) against the build before (.device/parvlc-old),
# alternating: `bench j2k` at 4K and 2K, both tier-1 strategies (every GPU result checked
# against the CPU tier-1 inside the bench), then thirty 4K frames, files in and out,
# `parvlc j2k FRAMES -o DIR --depth 8`, Part 1; the builds' codestreams compared and the
# first frame decoded by opj_decompress to its source first.
# There, from the project root, .device carried (staged with --openjpeg):
#   bash scripts/h200-mqrow14.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start mqrow14
D=/tmp/parvlc-mqrow14
mkdir -p "$D/in" "$D/a" "$D/b"
pan_frames "$D" 30
.device/parvlc j2k "$D"/in/*.ppm -o "$D/a" --force --depth 8 2>/dev/null
.device/parvlc-old j2k "$D"/in/*.ppm -o "$D/b" --force --depth 8 2>/dev/null
bad=0; for f in "$D"/a/*.j2k; do cmp -s "$f" "$D/b/$(basename "$f")" || bad=1; done
[ $bad = 0 ] && echo "both builds write the same 30 codestreams"
opj_decompress -i "$D/a/f000.j2k" -o "$D/back.ppm" >/dev/null 2>&1
python3 scripts/ppm.py same "$D/in/f000.ppm" "$D/back.ppm" && echo "opj_decompress gives frame 0"
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall "30 frames Part 1, $b, run $r" ".device/$b j2k $D/in/*.ppm -o $D/a --force --depth 8"
  done
done
rm -rf "$D"
for r in 1 2; do
  for b in parvlc-old parvlc; do
    echo "== $b round $r"
    .device/$b bench j2k --sizes 4K,2K --no-openjpeg --no-one-core --runs 3 2>&1 | grep -E "gpu-fast|gpu-all-mq|front-end-gpu"
  done
done
date -u
