#!/usr/bin/env bash
# A sequence of 4K RGB 8-bit frames (issue 16: at least 30 frames/s lossless, files in and
# files out) with the shaders built without naga's runtime checks (the twenty-third pass)
# and today's build (3cb3c43): `parvlc j2k FRAMES... -o FOLDER` at depths 4 (the default)
# and 8, Part 1 fast mode and --ht, 30 and 60 frames, output on the machine's disk;
# PARVLC_RUNTIME_CHECKS=1 beside the default at depth 8; one debug-logged 60-frame run
# summarized. The sequence's outputs equal the single-image runs' (cmp) and the first is
# decoded by opj_decompress to its source first.
# There, from the project root, .device carried (stage --openjpeg): bash scripts/h200-j2kseq24.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start j2kseq24
unpack_device
D=/tmp/parvlc-j2kseq24
B=.device/parvlc
pan_frames "$D" 60
mkdir -p "$D/one" "$D/seq" "$D/seq30"
cat "$D"/in/*.ppm > /dev/null
for f in "$D"/in/f00*.ppm; do b=$(basename "$f" .ppm); $B j2k "$f" -o "$D/one/$b.j2k" --force 2>/dev/null; done
$B j2k "$D"/in/*.ppm -o "$D/seq" --force 2>/dev/null
bad=0; for f in "$D"/one/*.j2k; do cmp -s "$f" "$D/seq/$(basename "$f")" || bad=1; done
[ $bad = 0 ] && echo "the sequence's outputs equal the single-image runs' (first 10)"
opj_decompress -i "$D/seq/f000.j2k" -o "$D/back.ppm" >/dev/null 2>&1
python3 scripts/ppm.py same "$D/in/f000.ppm" "$D/back.ppm"
first30=$(ls "$D"/in/*.ppm | head -30 | tr '\n' ' ')
for r in 1 2; do
  for depth in 4 8; do
    wall "30 frames, Part 1, depth $depth, run $r" "$B j2k $first30 -o $D/seq30 --force --depth $depth"
    wall "60 frames, Part 1, depth $depth, run $r" "$B j2k $D/in/*.ppm -o $D/seq --force --depth $depth"
    wall "30 frames, --ht, depth $depth, run $r" "$B j2k --ht $first30 -o $D/seq30 --force --depth $depth"
    wall "60 frames, --ht, depth $depth, run $r" "$B j2k --ht $D/in/*.ppm -o $D/seq --force --depth $depth"
  done
  wall "60 frames, Part 1, depth 8, PARVLC_RUNTIME_CHECKS=1, run $r" "PARVLC_RUNTIME_CHECKS=1 $B j2k $D/in/*.ppm -o $D/seq --force --depth 8"
done
RUST_LOG=parvlc=debug $B j2k "$D"/in/*.ppm -o "$D/seq" --force --depth 8 2> "$D/log.txt"
grep -c "code-blocks: record" "$D/log.txt"
grep -E "Wgpu opened|done after" "$D/log.txt" | cut -c1-120
grep "tier-1: 1 dispatch" "$D/log.txt" | head -3 | cut -c1-160
grep "tier-1: 1 dispatch" "$D/log.txt" | tail -3 | cut -c1-160
gzip -c "$D/log.txt" > "$OUT/j2kseq24-log.txt.gz"
date -u
