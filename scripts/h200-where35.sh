#!/usr/bin/env bash
# Thirty-fifth pass (2026-12-01): where the whole HT encoder's warm 30 ms go. One build
# (.device/parvlc, main with debug lines for the samples' upload, the results' read and
# the codestream's writing): `bench j2k --sizes 4K` debug-logged, the HT encoder's lines
# of every run; the 4K picture --ht through the CLI, debug-logged, twice.
# Run again on this pass's build as where35b (the debug lines kept).
# There, from the project root, .device carried:  bash scripts/h200-where35.sh [where35b]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-where35}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
mkdir -p "$D"
python3 scripts/ppm.py make "$D/pic.ppm" 3840 2160
echo "== bench j2k 4K, debug-logged"
RUST_LOG=parvlc=debug .device/parvlc bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5 2> "$D/log" | grep -E "ht|dwt"
grep -nE "HT|tier-2|front end|readback of|staging" "$D/log" | sed -E 's/^([0-9]+):\[[^ ]+ /\1 /' | tail -80
gzip -c "$D/log" > "$OUT/$NAME-bench.log.gz"
for r in 1 2; do
  echo "== CLI --ht, debug log, run $r"
  RUST_LOG=parvlc=debug .device/parvlc j2k "$D/pic.ppm" -o "$D/x.j2k" --force --ht 2>&1 | grep -E "read in|opened in|HT|tier-2|readback of|encoded in|done after|staging" | sed -E 's/^\[[^ ]+ //'
done
rm -rf "$D"
date -u
