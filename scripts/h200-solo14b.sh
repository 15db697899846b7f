#!/usr/bin/env bash
# The solo stage with its word read ahead (.device/parvlc) against without
# (.device/parvlc-noahead), alternating, with and without a second of back-to-back
# warm-up (the GPU's memory path is slow until kept busy: docs/results.md, "Seventh
# pass"); then every stage after that warm-up, segments of 1-4 KiB and of 64 B-1 KiB.
# Every GPU result is checked against the serial reference inside the bench first.
# There, from the project root, .device carried: bash scripts/h200-solo14b.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start solo14b
rows() { grep -E "^(bitstuff|solo|vote|fsm) " | grep -v end-to-end; }
for r in 1 2; do
  for b in parvlc-noahead parvlc; do
    for w in 0 1; do
      echo "== $b, warm-up $w s, round $r"
      .device/$b bench bitstuff --variants solo --inputs random,all-ff,cascade --cpu-max 0 --warm-up $w | rows
    done
  done
done
echo "== every stage, warm-up 1 s, segments of 1-4 KiB"
.device/parvlc bench bitstuff --cpu-max 0 --warm-up 1 --json "$OUT/solo14b.jsonl" | rows
echo "== every stage, warm-up 1 s, segments of 64 B-1 KiB"
.device/parvlc bench bitstuff --segment 64-1024 --cpu-max 0 --warm-up 1 --json "$OUT/solo14b-small.jsonl" | rows
date -u
