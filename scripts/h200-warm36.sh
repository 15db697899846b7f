#!/usr/bin/env bash
# Thirty-sixth pass (2026-12-01): the JPEG 2000 bench's GPU rows in the GPU's two
# states. `bench j2k --sizes 4K` as before (each GPU row after one untimed run, after
# the CPU rows have idled the GPU for seconds) and with `--warm-up 1` (each GPU row run
# back to back for a second first), alternating, two rounds; the HT encoder's resident
# passes traced in the second round of each.
# There, from the project root, .device carried:  bash scripts/h200-warm36.sh [NAME]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
NAME=${1:-warm36}
h200_start "$NAME"
unpack_device
D=/tmp/parvlc-$NAME
mkdir -p "$D"
B="bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 5"
for r in 1 2; do
  for w in 0 1; do
    echo "== round $r, --warm-up $w $(date +%T)"
    if [ $r = 2 ]; then
      RUST_LOG=parvlc::j2k=trace .device/parvlc $B --warm-up $w 2> "$D/log"
      python3 scripts/log_deltas.py "$D/log" "GPU passes" | tail -3
    else
      .device/parvlc $B --warm-up $w 2>&1
    fi
  done
done
rm -rf "$D"
date -u
