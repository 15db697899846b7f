#!/usr/bin/env bash
# What opening the GPU costs a short command, by the instance's backends: `parvlc
# compress` of a 1 MiB file (debug-logged: the instance, adapter and device phases) with
# wgpu's default backends (every one: Vulkan and GL) against WGPU_BACKEND=vulkan,
# alternating, five rounds. (As run, each line's wall came out empty: the GPU machine
# has no `bc`; the phases are the record. The instance took 65-75 ms either way.)
# There, from the project root, .device carried: bash scripts/h200-open21.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start open21
unpack_device
D=/tmp/parvlc-open21
mkdir -p "$D"
head -c 1048576 /usr/bin/* 2>/dev/null | head -c 1048576 > "$D/small"
.device/parvlc compress "$D/small" -o "$D/small.pvlc" --force 2>/dev/null
for round in 1 2 3 4 5; do
  for b in all vulkan; do
    if [ $b = all ]; then unset WGPU_BACKEND; else export WGPU_BACKEND=vulkan; fi
    s=$(date +%s.%N)
    RUST_LOG=parvlc=debug .device/parvlc compress "$D/small" -o "$D/small.pvlc" --force 2>&1 | grep -o 'GPU opened.*'
    e=$(date +%s.%N)
    echo "round $round, backends $b: wall $(echo "$e - $s" | bc) s"
  done
done
unset WGPU_BACKEND
date -u
