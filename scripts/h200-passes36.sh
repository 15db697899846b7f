#!/usr/bin/env bash
# Thirty-sixth pass (2026-12-01): the whole HT encoder's GPU passes on resident
# coefficients, timed (trace level: the front end's rct, dwt and gather, the HT kernel),
# in `bench j2k --sizes 4K` (warm runs; the bench checks the codestream first) and in the
# CLI's 4K picture --ht.
# There, from the project root, .device carried:  bash scripts/h200-passes36.sh [NAME]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-passes36}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
mkdir -p "$D"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
echo "== bench j2k 4K, HT resident passes traced"
RUST_LOG=parvlc::j2k=trace,parvlc=debug .device/parvlc bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2> "$D/log" | grep -E "ht|dwt"
python3 scripts/log_deltas.py "$D/log" "GPU passes|upload written|recorded and submitted|results read after|gather of|tier-2|front end, tier-1" | tail -45
gzip -c "$D/log" > "$OUT/$NAME-bench.log.gz"
echo "== bench j2k 4K, not traced"
.device/parvlc bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2>&1 | grep -E "ht|dwt"
for r in 1 2; do
  echo "== CLI --ht, traced, run $r"
  RUST_LOG=parvlc::j2k=trace,parvlc=debug .device/parvlc j2k "$D/pic.ppm" -o "$D/x.j2k" --force --ht 2> "$D/log"
  python3 scripts/log_deltas.py "$D/log" "GPU passes|upload written|recorded and submitted|results read after|done after"
done
rm -rf "$D"
date -u
