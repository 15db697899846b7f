#!/usr/bin/env bash
# Thirty-fourth pass (2026-11-30), second call: the HT cleanup stage as a workgroup per
# code-block with its exponents in workgroup memory and MagSgn staged there
# (.device/parvlc, 2nd commit) against the build before it, one invocation per block
# (.device/parvlc-base, 81d7ad0), alternating in one call:
#   - one 4K RGB picture --ht: both builds write the same codestream, which ojph_expand
#     and opj_decompress decode to the source;
#   - `bench j2k --sizes 4K` (its HT rows check every GPU block against the CPU HT
#     coder before timing), two rounds each;
#   - the 4K picture --ht, files in and out, three rounds, with ojph_compress
#     -reversible true and opj_compress -M 1 -threads 16 beside;
#   - thirty 4K frames --ht at depth 8, two rounds each, outputs compared.
# There, from the project root, .device carried (staged with --openjpeg, plus the
# openjph-tools and libopenjph debs in .device/debs):  bash scripts/h200-htpar34b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start htpar34b
unpack_device
D=/tmp/parvlc-htpar34b
mkdir -p "$D/base" "$D/new"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
for b in base new; do
  B=.device/parvlc; [ $b = base ] && B=.device/parvlc-base
  $B j2k "$D/pic.ppm" -o "$D/$b.j2k" --force --ht 2>&1 | tail -1
done
cmp "$D/base.j2k" "$D/new.j2k" && echo "4K --ht: both builds write the same codestream ($(stat -c %s "$D/new.j2k") bytes)"
ojph_expand -i "$D/new.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/pic.ppm" && echo "ojph_expand gives the source"
opj_decompress -i "$D/new.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/pic.ppm" && echo "opj_decompress gives the source"
for r in 1 2; do
  for b in base new; do
    B=.device/parvlc; [ $b = base ] && B=.device/parvlc-base
    echo "== bench j2k 4K, $b, round $r"
    $B bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "ht|encoder"
  done
done
for r in 1 2 3; do
  wall "4K --ht, base, run $r" ".device/parvlc-base j2k $D/pic.ppm -o $D/x.j2k --force --ht"
  wall "4K --ht, new, run $r" ".device/parvlc j2k $D/pic.ppm -o $D/x.j2k --force --ht"
  wall "4K ojph_compress -reversible true, run $r" "ojph_compress -i $D/pic.ppm -o $D/o.j2c -reversible true -num_decomps 5 -block_size {64,64}"
  wall "4K opj_compress -M 1 -threads 16, run $r" "opj_compress -i $D/pic.ppm -o $D/o.j2k -M 1 -threads 16"
done
pan_frames "$D" 30
for r in 1 2; do
  for b in base new; do
    B=.device/parvlc; [ $b = base ] && B=.device/parvlc-base
    wall "30 frames --ht depth 8, $b, run $r" "$B j2k $D/in/*.ppm -o $D/$b --force --depth 8 --ht"
  done
done
bad=0; for f in "$D"/base/*.j2k; do cmp -s "$f" "$D/new/$(basename "$f")" || bad=1; done
[ $bad = 0 ] && echo "30 frames: both builds write the same codestreams" || echo "30 frames: OTHER BYTES"
rm -rf "$D"
date -u
