#!/usr/bin/env bash
# The three-kernel tier-1's MQ kernel coding one pair an iteration (.device/parvlc)
# against four pairs unrolled twice (.device/parvlc-old), alternating: `bench j2k` at 4K
# and 2K (every GPU result checked against the CPU tier-1 inside the bench), then one
# 4K picture through the CLI, its codestream compared between the builds and decoded by
# opj_decompress to the source.
# There, from the project root, .device carried (staged with --openjpeg):
#   bash scripts/h200-mqloop14.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start mqloop14
D=/tmp/parvlc-mqloop14
mkdir -p "$D"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
for b in parvlc-old parvlc; do
  .device/$b j2k "$D/pic.ppm" -o "$D/$b.j2k" --force 2>&1 | tail -1
done
cmp "$D/parvlc-old.j2k" "$D/parvlc.j2k" && echo "the builds write the same codestream"
opj_decompress -i "$D/parvlc.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/back.ppm" "$D/pic.ppm" && echo "opj_decompress gives the source"
# (The call of 2026-11-28 compared the two files with cmp, which their headers fail.)
for r in 1 2; do
  for b in parvlc-old parvlc; do
    echo "== $b round $r"
    .device/$b bench j2k --sizes 4K,2K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "three-kernel|front-end-gpu"
  done
done
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall "$b 4K picture run $r" ".device/$b j2k $D/pic.ppm -o $D/x.j2k --force"
  done
done
rm -rf "$D"
date -u
