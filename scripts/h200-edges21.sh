#!/usr/bin/env bash
# Whether the encoder could write its output straight into host memory (issue 13: the
# readback's copy is about 70 us of a chunk's 300 on the GPU's queue): examples/link_bench,
# whose new rows write as the encoder does (atomic stores, every block's first and last
# word OR-ed) into device memory then copy it back, against into a mappable buffer in
# place (atomics across the link); every method's bytes checked. Twice.
# There, from the project root, .device carried: bash scripts/h200-edges21.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start edges21
unpack_device
for round in 1 2; do
  echo "== round $round"
  .device/link_bench | grep -v '^host'
done
date -u
