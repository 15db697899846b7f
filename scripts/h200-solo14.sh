#!/usr/bin/env bash
# The solo bit-stuffing stage (one invocation per segment) beside vote and fsm: the
# bench's default shape (256 MiB of raw bits in segments of 1-4 KiB, four inputs), then
# code-block-sized segments (64 B-1 KiB), then solo's workgroup size. Every GPU result is
# checked against the serial reference inside the bench before it is timed.
# There, from the project root, .device carried: bash scripts/h200-solo14.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start solo14
.device/parvlc bench bitstuff --json "$OUT/solo14.jsonl"
.device/parvlc bench bitstuff --segment 64-1024 --cpu-max 0 --json "$OUT/solo14-small.jsonl"
for wg in 32 64 128; do
  echo "== workgroup size $wg"
  .device/parvlc bench bitstuff --variants solo --inputs random,all-ff --cpu-max 0 --workgroup-size $wg
done
date -u
