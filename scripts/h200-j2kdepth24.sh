#!/usr/bin/env bash
# `parvlc j2k` sequences at the new default depth (as many pictures in flight as about
# 640 MiB holds at the first picture's size: 8 at 4K RGB) against --depth 4 (the old
# default) and 8: 30 and 60 frames of the 4K RGB pan, Part 1 and --ht, files in and out
# on the machine's disk, two rounds; outputs compared with the single-image runs' first.
# There, from the project root, .device carried (stage --openjpeg): bash scripts/h200-j2kdepth24.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start j2kdepth24
unpack_device
D=/tmp/parvlc-j2kdepth24
B=.device/parvlc
pan_frames "$D" 60
mkdir -p "$D/one" "$D/seq" "$D/seq30"
cat "$D"/in/*.ppm > /dev/null
for f in "$D"/in/f00*.ppm; do b=$(basename "$f" .ppm); $B j2k "$f" -o "$D/one/$b.j2k" --force 2>/dev/null; done
RUST_LOG=parvlc=debug $B j2k "$D"/in/*.ppm -o "$D/seq" --force 2>&1 | grep -E "pictures in flight|images ->" | cut -c1-160
bad=0; for f in "$D"/one/*.j2k; do cmp -s "$f" "$D/seq/$(basename "$f")" || bad=1; done
[ $bad = 0 ] && echo "the sequence's outputs equal the single-image runs' (first 10)"
opj_decompress -i "$D/seq/f000.j2k" -o "$D/back.ppm" >/dev/null 2>&1
python3 scripts/ppm.py same "$D/in/f000.ppm" "$D/back.ppm"
first30=$(ls "$D"/in/*.ppm | head -30 | tr '\n' ' ')
for r in 1 2; do
  for depth in default 4 8; do
    if [ $depth = default ]; then d=""; else d="--depth $depth"; fi
    wall "30 frames, Part 1, depth $depth, run $r" "$B j2k $first30 -o $D/seq30 --force $d"
    wall "60 frames, Part 1, depth $depth, run $r" "$B j2k $D/in/*.ppm -o $D/seq --force $d"
    wall "60 frames, --ht, depth $depth, run $r" "$B j2k --ht $D/in/*.ppm -o $D/seq --force $d"
  done
done
date -u
