#!/usr/bin/env bash
# Thirty-fourth pass (2026-11-30), third call: where the whole HT encoder's time goes
# once its kernel is 7 ms. This build (.device/parvlc, with debug timings inside the
# resident HT path): the whole `bench j2k --sizes 4K` output (front-end passes too), and
# one 4K picture --ht debug-logged, three runs; the same picture through the build before
# (.device/parvlc-base) debug-logged beside.
# There, from the project root, .device carried:  bash scripts/h200-htwhere34.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start htwhere34
unpack_device
D=/tmp/parvlc-htwhere34
mkdir -p "$D"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
.device/parvlc bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -v "^\s*$"
for r in 1 2 3; do
  for b in base new; do
    B=.device/parvlc; [ $b = base ] && B=.device/parvlc-base
    echo "== $b, run $r"
    RUST_LOG=parvlc=debug $B j2k "$D/pic.ppm" -o "$D/x.j2k" --force --ht 2>&1 | sed -E 's/^\[[^ ]+ //' | grep -E "ms|->" | cut -c1-220
  done
done
rm -rf "$D"
date -u
