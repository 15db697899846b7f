#!/usr/bin/env bash
# Tier-2 on all cores (blocks' and packets' headers in parallel, the tile laid out once):
# .device/parvlc-old (272c63d) against .device/parvlc, alternating, `parvlc j2k` of a 4K
# RGB picture, Part 1 and --ht, debug-logged (the "tier-2 and codestream" time) and timed
# whole, four rounds; the codestreams compared between the builds and decoded by
# opj_decompress first.
# There, from the project root, .device carried (stage --openjpeg): bash scripts/h200-tier2par24.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start tier2par24
unpack_device
D=/tmp/parvlc-tier2par24
mkdir -p "$D"
python3 scripts/ppm.py make "$D/4k.ppm" 3840 2160
for b in parvlc-old parvlc; do
  .device/$b j2k "$D/4k.ppm" -o "$D/$b.j2k" --force 2>/dev/null
  .device/$b j2k "$D/4k.ppm" -o "$D/$b.jph" --ht --force 2>/dev/null
done
cmp "$D/parvlc-old.j2k" "$D/parvlc.j2k" && cmp "$D/parvlc-old.jph" "$D/parvlc.jph" && echo "both builds write the same codestreams"
opj_decompress -i "$D/parvlc.j2k" -o "$D/back.ppm" >/dev/null 2>&1 && python3 scripts/ppm.py same "$D/4k.ppm" "$D/back.ppm"
for r in 1 2 3 4; do
  for b in parvlc-old parvlc; do
    for ht in "" "--ht"; do
      echo -n "$b $ht round $r: "
      RUST_LOG=parvlc::j2k=debug .device/$b j2k "$D/4k.ppm" -o "$D/x.j2k" --force $ht 2>&1 | grep -o "tier-2 and codestream [0-9.]* ms"
      wall "$b j2k 4K $ht, run $r" ".device/$b j2k $D/4k.ppm -o $D/x.j2k --force $ht"
    done
  done
done
date -u
