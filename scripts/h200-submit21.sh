#!/usr/bin/env bash
# What a submission costs the GPU itself (examples/submit_bench): passes of a kernel of
# about 20, 60 and 200 us, recorded in one command buffer, as a command buffer each in
# one submit, and as a submit each, by timestamps.
# There, from the project root, .device carried: bash scripts/h200-submit21.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start submit21
unpack_device
for loops in 1024 4096 16384; do
  echo "== LOOPS=$loops"
  LOOPS=$loops K=100 .device/submit_bench
done
date -u
