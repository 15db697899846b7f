#!/usr/bin/env bash
# Fifteenth pass (2026-11-28): the coded bytes of a picture's code-blocks packed on the
# GPU and read back in one copy (.device/parvlc, the `gather` stage) against a copy
# command per block (.device/parvlc-old), alternating:
#   - one 4K RGB picture, Part 1 and --ht: codestreams compared between the builds and
#     decoded by opj_decompress to the source; one debug-logged run of each build;
#   - `bench j2k` at 4K (every GPU result checked against the CPU inside the bench);
#   - thirty 4K frames, files in and out, depth 8, Part 1 and --ht, outputs compared.
# There, from the project root, .device carried (staged with --openjpeg):
#   bash scripts/h200-gather15.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start gather15
D=/tmp/parvlc-gather15
mkdir -p "$D/old" "$D/new"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
for mode in "" "--ht"; do
  for b in parvlc-old parvlc; do
    .device/$b j2k "$D/pic.ppm" -o "$D/$b.j2k" --force $mode 2>&1 | tail -1
  done
  cmp "$D/parvlc-old.j2k" "$D/parvlc.j2k" && echo "the builds write the same codestream ($mode)"
  opj_decompress -i "$D/parvlc.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/pic.ppm" && echo "opj_decompress gives the source ($mode)"
  for b in parvlc-old parvlc; do
    echo "-- debug log, $b $mode"
    RUST_LOG=parvlc=debug .device/$b j2k "$D/pic.ppm" -o "$D/x.j2k" --force $mode 2>&1 | grep -E "tier-1|front end|readback|done after" | cut -c 30-220
  done
done
for r in 1 2; do
  for b in parvlc-old parvlc; do
    echo "== $b round $r"
    .device/$b bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "encoder|three-kernel"
  done
done
pan_frames "$D" 30
for mode in "" "--ht"; do
  .device/parvlc-old j2k "$D"/in/*.ppm -o "$D/old" --force --depth 8 $mode 2>/dev/null
  .device/parvlc j2k "$D"/in/*.ppm -o "$D/new" --force --depth 8 $mode 2>/dev/null
  bad=0; for f in "$D"/old/*.j2k; do cmp -s "$f" "$D/new/$(basename "$f")" || bad=1; done
  [ $bad = 0 ] && echo "both builds write the same 30 codestreams ($mode)"
  for r in 1 2 3; do
    wall "30 frames $mode depth 8, old, run $r" ".device/parvlc-old j2k $D/in/*.ppm -o $D/old --force --depth 8 $mode"
    wall "30 frames $mode depth 8, new, run $r" ".device/parvlc j2k $D/in/*.ppm -o $D/new --force --depth 8 $mode"
  done
done
rm -rf "$D"
date -u
